import type { AimedShot } from '../judging/aimed-shot.ts';
import { lockProcessRanOn, lockStoppedWith, type Judge } from '../judging/fault-shot.ts';
import {
  at,
  done,
  holderWrite,
  holderWrote,
  leaseRanOut,
  missing,
  type OtherSection,
  secs,
} from '../judging/story-steps.ts';
import { otherWrote, struck, tell } from '../judging/story.ts';

/**
 * pause-holder's judge: a shot is a hit only when the story its facts tell (facts.ts, `story`) completed, step by
 * step (faults/judging/story.ts). How the shot *started* (inside a critical section, longer than the TTL) is only
 * the first step: a pause the run's end cut short, or one nobody used to take the lock, tested nothing.
 */

export const judge: Judge<'pause-holder'> = (shot) => {
  const { start, end, history: h, ev } = shot;
  const p = ev.start;
  let a!: AimedShot;
  let resumeNs = 0;
  let other!: OtherSection;
  return tell(start, 'pause-holder', {
    stopped: struck(
      shot,
      p.aim,
      (x) => (a = x),
      () => lockProcessRanOn(p),
      lockStoppedWith(p) && `, ${lockStoppedWith(p)}`,
    ),
    'lease-expired': () => {
      if (!end) return missing(`the history ended with ${a.who} still stopped`);
      resumeNs = end.time;
      const ttlMs = p.ttlMs;
      const stoppedMs = Math.round((end.time - a.strikeNs) / 1e6);
      if (ttlMs === undefined) return missing('the shot recorded no TTL to outlive');
      if (!leaseRanOut(stoppedMs, ttlMs))
        return missing(
          `${a.who} was stopped ${stoppedMs} ms, less than the TTL (${ttlMs} ms): its lease may not have run out`,
        );
      return done(`stopped ${secs(stoppedMs)} ≥ the TTL (${secs(ttlMs)})`);
    },
    'other-wrote': () => otherWrote(shot, a, a.strikeNs, resumeNs, (o) => (other = o), `before ${a.who} resumed`),
    resumed: () =>
      ev.end?.cutShort === true
        ? missing(`the run's end cut the pause short (at ${at(resumeNs)}): the clients were stopping`)
        : done(`${a.who} resumed at ${at(resumeNs)}`),
    'holder-wrote': () => holderWrote(holderWrite(h, a.own, a.read), a.who, other.read!.time),
  });
};
