import type { Judge } from '../judging/fault-shot.ts';
import { done, inProgressAt, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { holdersOf } from './advisory-holds.ts';

/**
 * reply-loss-pg-lock's story, from its records (inject.ts beside this file) and the history: a granted
 * pg_advisory_lock's reply was dropped, Postgres held that key for a backend of the client's lock session (pg_locks,
 * read right after the drop), and the client's acquire in progress at the drop never reported the lock acquired. No
 * session of the client holding the key is a miss: nothing shows the grant took effect.
 */
export const judge: Judge<'reply-loss-pg-lock'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-pg-lock', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length)
        return missing(ev.endNote || `no reply to a granted advisory lock of ${who} was dropped`);
      return done(`the reply to ${who}'s granted ${e.statement ?? 'pg_advisory_lock'} was dropped`);
    },
    committed: () => {
      if (e?.key === undefined) return missing('the dropped statement named no advisory key to look for');
      if (e.readError !== undefined) return missing(`pg_locks was not read after the drop: ${e.readError}`);
      const session = ev.start.session ?? `${who}'s lock session`;
      const holders = holdersOf(e.after, e.key);
      if (!holders.length)
        return missing(
          `no session named ${session} held advisory key ${e.key} right after the drop: nothing shows the grant took effect`,
        );
      return done(`right after the drop backend ${holders.join(', ')} (${session}) held advisory key ${e.key}`);
    },
    unacknowledged: () => {
      const at = e?.droppedAt;
      if (at === undefined) return missing('the drop has no time on record');
      const acquire = inProgressAt(shot.byProcess.get(holder) ?? [], 'acquire', at, shot.history);
      if (!acquire) return missing(`no acquire of ${who} was in progress at the drop`);
      const completion = shot.history.completionOf(acquire);
      if (completion?.type === 'ok')
        return missing(`${who}'s acquire #${completion.index} completed ok: the client heard an answer`);
      const how = completion ? `${completion.type}${completion.error ? ` (${completion.error})` : ''}` : 'no answer';
      return done(`${who}'s acquire #${acquire.index} ended ${how}`);
    },
  });
};
