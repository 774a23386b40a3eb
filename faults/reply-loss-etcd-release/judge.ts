import type { Judge } from '../judging/fault-shot.ts';
import { done, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { releaseUnheard } from '../judging/release-unheard.ts';

/**
 * reply-loss-etcd-release's story, from its records (inject.ts) and the history: the release Txn's answer was dropped
 * and its connection reset; etcd had deleted the holder's incarnation of the key (read right after the drop: no key,
 * or another create revision than the one the Txn compared on); and the holder never heard it (its release failed,
 * timed out, or reported the lock not released). The holder's incarnation still there is a miss: the release never
 * took effect.
 */
export const judge: Judge<'reply-loss-etcd-release'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-etcd-release', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no answer to ${who}'s release was dropped`);
      return done(
        `the answer to ${who}'s release of ${e.key ?? 'its key'} was dropped on ${e.droppedOn.join(', ')} and the connection reset`,
      );
    },
    committed: () => {
      if (e?.key === undefined || e.revision === undefined)
        return missing('the dropped Txn named no key and revision to read back');
      if (e.readError !== undefined) return missing(`the key was not read after the drop: ${e.readError}`);
      if (!e.read) return missing('the key was not read after the drop');
      if (e.revisionAfter === e.revision)
        return missing(
          `${e.key} was still ${who}'s (revision ${e.revision}) after the drop: the release never took effect`,
        );
      const after =
        e.revisionAfter === undefined ? 'etcd held no such key' : `it was another's (revision ${e.revisionAfter})`;
      return done(`right after the drop ${who}'s ${e.key} (revision ${e.revision}) was gone: ${after}`);
    },
    unacknowledged: () => releaseUnheard(shot, holder, e?.releaseTime),
  });
};
