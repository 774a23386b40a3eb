import type { Judge } from '../judging/fault-shot.ts';
import { done, missing, secs } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { releaseUnheard } from '../judging/release-unheard.ts';
import { committed, serverEffect } from './server-effect.ts';

/**
 * reply-loss's story, from its records (faults/reply-loss/inject.ts) and the history: the release's reply was
 * dropped, Redis had carried the release out (read from the server right after the drop: server-effect.ts), and
 * the holder never heard it (its release failed, timed out, or reported the lock not released). No server effect is a miss: the request never
 * arrived, or arrived and did nothing, and nothing was lost but a reply.
 */
export const judge: Judge<'reply-loss'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no reply to ${who}'s release was dropped`);
      return done(`the reply to ${who}'s release was dropped on ${e.droppedOn.join(', ')}`);
    },
    committed: () => {
      const effect = serverEffect({
        droppedOn: e?.droppedOn ?? [],
        ownerValues: ev.start.ownerValues ?? {},
        pttlMs: ev.start.pttlMs ?? {},
        valuesAfter: e?.valuesAfter ?? {},
        unanswered: e?.unanswered ?? [],
        readsApartMs: e?.readsApartMs,
      });
      if (committed(effect))
        return done(
          `the key was gone on ${effect.acted.join(', ')} ${secs(e!.readsApartMs!)} after the section began, within its PTTL`,
        );
      if (effect.untouched.length)
        return missing(`the owner's key was still on ${effect.untouched.join(', ')}: the release never took effect`);
      return missing(`no server effect could be read: ${effect.unknown.join('; ') || 'no node'}`);
    },
    unacknowledged: () => releaseUnheard(shot, holder, e?.releaseTime),
  });
};
