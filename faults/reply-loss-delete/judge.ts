import type { Judge } from '../judging/fault-shot.ts';
import { done, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { releaseUnheard } from '../judging/release-unheard.ts';
import { splitPath } from '../reply-loss-create/own-children.ts';

/** A node's ephemeral owner when it has none: a persistent node, never a lock node. */
const NO_SESSION = '0';

/**
 * reply-loss-delete's story, from its records (inject.ts beside this file) and the history: the holder's delete's
 * reply was dropped; ZooKeeper had carried it out — the node it named, ephemeral to a session as the section began,
 * was gone right after the drop, the two reads closer together than the session timeout (so the session's end cannot
 * have taken it); and the holder never heard it. The node still there is a miss: the delete never took effect.
 */
export const judge: Judge<'reply-loss-delete'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-delete', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no reply to ${who}'s delete was dropped`);
      return done(`the reply to ${who}'s delete of ${e.path ?? 'its node'} was dropped on ${e.droppedOn.join(', ')}`);
    },
    committed: () => {
      if (e?.path === undefined) return missing('the dropped delete named no node to look for');
      if (ev.start.beforeError !== undefined)
        return missing(`the lock directory was not read as the section began: ${ev.start.beforeError}`);
      if (e.readError !== undefined) return missing(`the lock directory was not read after the drop: ${e.readError}`);
      const { dir, base } = splitPath(e.path);
      const owner = ev.start.before?.[base];
      if (owner === undefined || owner === NO_SESSION)
        return missing(`${dir} held no node ${base} of ${who}'s session as the section began`);
      if (Object.hasOwn(e.after ?? {}, base))
        return missing(`${base} was still in ${dir}: the delete never took effect`);
      const apart = e.readsApartMs;
      const ttl = ev.start.ttlMs;
      if (apart === undefined || ttl === undefined || apart >= ttl)
        return missing(
          `${base} was gone, but ${apart ?? '?'} ms after the first read, not within the session timeout (${ttl ?? '?'} ms): its session may have ended`,
        );
      return done(
        `${base} (session 0x${owner}) was gone from ${dir} right after the drop, ${apart} ms after it was read`,
      );
    },
    unacknowledged: () => releaseUnheard(shot, holder, e?.releaseTime),
  });
};
