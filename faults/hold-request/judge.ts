import type { Op } from '../../history/op.ts';
import type { Judge, ShotRecords } from '../judging/fault-shot.ts';
import { at, done, missing, secs } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';

/**
 * hold-request's story, from its records (faults/hold-request/inject.ts) and the history: a client's request was
 * caught in flight by its own proxy — named with the client op that sent it, the one in progress at the catch — and
 * then delivered with the clients still running. A hold the run's end cut short delivered nothing anyone acted on.
 */
export const judge: Judge<'hold-request'> = (shot) => {
  const { start, end, ev } = shot;
  const s = ev.start;
  const who = `p${s.process ?? '?'}`;
  return tell(start, 'hold-request', {
    'request-held': () => {
      if (!s.heldOn?.length || s.heldAt === undefined) return missing(ev.startNote || `no request of ${who} was held`);
      const what = `${s.command && s.command !== 'any' ? s.command : 'request'}${s.key ? ` ${s.key}` : ''}`;
      const op = inProgress(shot, s.process ?? -1, s.heldAt);
      const sent = op ? `, sent by its ${op.f} #${op.index}` : '';
      return done(`${who}'s ${what} was held on ${s.heldOn.join(', ')} at ${at(s.heldAt)}${sent}`);
    },
    delivered: () => {
      if (!end) return missing('the history ended before the held request was delivered');
      if (ev.end?.cutShort) return missing(`the run's end cut the hold short: ${ev.endNote}`);
      const heldMs = ev.end?.heldMs;
      return done(`delivered at ${at(end.time)}${heldMs === undefined ? '' : `, held ${secs(heldMs)}`}`);
    },
  });
};

/** The client op of `process` in progress at `ns`: invoked by then, not completed before. */
function inProgress(shot: Pick<ShotRecords, 'byProcess' | 'history'>, process: number, ns: number): Op | undefined {
  return [...(shot.byProcess.get(process) ?? [])].reverse().find((op) => {
    if (op.type !== 'invoke' || op.time > ns) return false;
    const completion = shot.history.completionOf(op);
    return completion == null || completion.time >= ns;
  });
}
