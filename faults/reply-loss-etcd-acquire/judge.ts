import type { Judge } from '../judging/fault-shot.ts';
import { done, inProgressAt, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';

/**
 * reply-loss-etcd-acquire's story, from its records (inject.ts) and the history: a granted acquire Txn's answer was
 * dropped and its connection reset; etcd held the key with the value the Txn wrote, on the lease it named (read after
 * the drop at the revision the dropped answer gave); and the acquire in progress at the drop completed — granted (with that very key, when its token is
 * the key's create revision), or not granted with the key left behind. No such key after the drop is a miss: nothing
 * shows the Txn took effect.
 */
export const judge: Judge<'reply-loss-etcd-acquire'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-etcd-acquire', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no answer to a granted acquire of ${who} was dropped`);
      return done(
        `the answer to ${who}'s Txn putting ${e.key ?? 'its key'} was dropped on ${e.droppedOn.join(', ')} and the connection reset`,
      );
    },
    committed: () => {
      if (e?.key === undefined || e.sent === undefined || e.lease === undefined)
        return missing('the dropped Txn carried no key, value and lease to read back');
      if (e.readError !== undefined) return missing(`the key was not read after the drop: ${e.readError}`);
      if (e.committedAt === undefined) return missing('the dropped answer gave no revision to read the key at');
      if (e.valueAtCommit === undefined)
        return missing(`etcd held no ${e.key} at revision ${e.committedAt}: nothing shows the Txn took effect`);
      if (e.valueAtCommit !== e.sent || e.leaseAtCommit !== e.lease)
        return missing(
          `${e.key} held another's value or lease at revision ${e.committedAt} (lease ${e.leaseAtCommit})`,
        );
      const now =
        e.valueAfter === undefined
          ? 'gone by the read right after the drop (its lease revoked)'
          : `still there right after the drop (revision ${e.revisionAfter})`;
      return done(`at revision ${e.committedAt} ${e.key} held ${who}'s value on its lease ${e.lease}, ${now}`);
    },
    settled: () => {
      const at = e?.droppedAt;
      if (at === undefined) return missing('the drop has no time on record');
      const acquire = inProgressAt(shot.byProcess.get(holder) ?? [], 'acquire', at, shot.history);
      if (!acquire) return missing(`no acquire of ${who} was in progress at the drop`);
      const completion = shot.history.completionOf(acquire);
      if (!completion) return missing(`${who}'s acquire #${acquire.index} never completed`);
      if (completion.type !== 'ok') {
        const how = `${completion.type}${completion.error ? ` (${completion.error})` : ''}`;
        return done(`${who}'s acquire #${acquire.index} ended ${how}, its key left on its lease ${e?.lease}`);
      }
      const token = String((completion.value as { token?: unknown } | null)?.token ?? '?');
      // fencepost's recipe grants with the key's create revision as its token; Go's Mutex with the revision the
      // grant was read at, which a later write moves: a token that is not the revision says which, not a miss.
      if (token === e?.revisionAfter)
        return done(
          `${who}'s acquire #${completion.index} ended ok holding that key (token ${token}): its retry found its own key`,
        );
      return done(
        `${who}'s acquire #${completion.index} ended ok (token ${token}; the dropped Txn's key has create revision ${e?.revisionAfter})`,
      );
    },
  });
};
