import type { Judge } from '../judging/fault-shot.ts';
import { done, inProgressAt, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { watchdogProcess } from '../../history/process-role.ts';

/** How much more PTTL than the time between the reads left must be there for the key to count as extended (ms). */
export const EXTENDED_MARGIN_MS = 50;

/**
 * reply-loss-renew's story, from its records (inject.ts) and the history: the renewal's reply was dropped, Redis had
 * extended the key (the owner's value still there, its PTTL past what the time between the two reads left of the
 * first), and the holder's watchdog never heard it (its renewal in progress at the drop failed).
 */
export const judge: Judge<'reply-loss-renew'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-renew', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no reply to ${who}'s renewal was dropped`);
      return done(`the reply to ${who}'s renewal was dropped on ${e.droppedOn.join(', ')}`);
    },
    committed: () => {
      const apart = e?.readsApartMs;
      if (apart === undefined) return missing('the key was not read after the drop');
      const extended: string[] = [];
      for (const n of e?.droppedOn ?? []) {
        const owner = ev.start.ownerValues?.[n];
        const p0 = ev.start.pttlMs?.[n];
        const p1 = e!.pttlAfterMs?.[n];
        if (owner === undefined || p0 === undefined) return missing(`${n} held no owner key as the section began`);
        if (e!.valuesAfter?.[n] !== owner) return missing(`the owner's key was no longer on ${n} after the drop`);
        if (p1 === undefined || p1 <= p0 - apart + EXTENDED_MARGIN_MS)
          return missing(`${n}'s key was not extended: PTTL ${p0} ms, then ${p1} ms ${apart} ms later`);
        extended.push(`${n} (PTTL ${p0} → ${p1} ms over ${apart} ms)`);
      }
      return done(`the owner's key was extended on ${extended.join(', ')}`);
    },
    unacknowledged: () => {
      const at = e?.droppedAt;
      if (at === undefined) return missing('the drop has no time on record');
      const renew = inProgressAt(shot.byProcess.get(watchdogProcess(holder)) ?? [], 'renew', at, shot.history);
      if (!renew) return missing(`no renewal of ${who}'s watchdog was in progress at the drop`);
      const completion = shot.history.completionOf(renew);
      if (completion?.type === 'ok')
        return missing(`${who}'s renewal #${completion.index} completed ok: the watchdog heard an answer`);
      const how = completion ? `${completion.type}${completion.error ? ` (${completion.error})` : ''}` : 'no answer';
      return done(`${who}'s renewal #${renew.index} ended ${how}`);
    },
  });
};
