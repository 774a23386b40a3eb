import type { Judge } from '../judging/fault-shot.ts';
import { done, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { holdersOf } from '../reply-loss-pg-lock/advisory-holds.ts';

/**
 * reply-loss-pg-unlock's story, from its records (inject.ts beside this file) and the history: the holder's
 * pg_advisory_unlock's reply was dropped; Postgres had carried it out — the backend that held the key as the section
 * began was still there right after the drop and held it no more (a backend gone tells nothing: its session's end
 * frees the lock too); and the holder never heard it (its release failed, timed out or never ended).
 */
export const judge: Judge<'reply-loss-pg-unlock'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-pg-unlock', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no reply to ${who}'s unlock was dropped`);
      return done(`the reply to ${who}'s ${e.statement ?? 'pg_advisory_unlock'} was dropped`);
    },
    committed: () => {
      if (e?.key === undefined) return missing('the dropped statement named no advisory key to look for');
      if (ev.start.beforeError !== undefined)
        return missing(`pg_locks was not read as the section began: ${ev.start.beforeError}`);
      if (e.readError !== undefined) return missing(`pg_locks was not read after the drop: ${e.readError}`);
      const held = holdersOf(ev.start.before, e.key);
      if (!held.length) return missing(`no session of ${who} held advisory key ${e.key} as the section began`);
      const after = e.after ?? {};
      const still = held.filter((pid) => holdersOf(after, e.key!).includes(pid));
      if (still.length) return missing(`backend ${still.join(', ')} still held ${e.key}: the unlock never took effect`);
      const gone = held.filter((pid) => !Object.hasOwn(after, pid));
      if (gone.length === held.length)
        return missing(
          `backend ${gone.join(', ')} had ended by the read after the drop: its session took the lock with it, nothing shows the unlock did`,
        );
      const freed = held.filter((pid) => !gone.includes(pid));
      return done(`right after the drop backend ${freed.join(', ')} was still open and no longer held ${e.key}`);
    },
    unacknowledged: () => {
      const release = (shot.byProcess.get(holder) ?? []).find(
        (op) => op.f === 'release' && op.type === 'invoke' && op.time === e?.releaseTime,
      );
      if (!release) return missing(`${who}'s release is not in the history`);
      const completion = shot.history.completionOf(release);
      if (completion?.type === 'ok')
        return missing(`${who}'s release #${completion.index} completed ok: the client heard an answer`);
      const how = completion ? `${completion.type}${completion.error ? ` (${completion.error})` : ''}` : 'no answer';
      return done(`${who}'s release #${release.index} ended ${how}`);
    },
  });
};
