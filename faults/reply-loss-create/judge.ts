import type { Judge } from '../judging/fault-shot.ts';
import { done, inProgressAt, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { splitPath } from './own-children.ts';

/** A node's ephemeral owner when it has none: a persistent node, such as a lock directory mkdirp made. */
const NO_SESSION = '0';

/**
 * reply-loss-create's story, from its records (faults/reply-loss-create/inject.ts) and the history: a create's reply
 * was dropped and its connection reset; ZooKeeper had made the node (a child named by the create's path, ephemeral
 * to a live session, read right after the drop); and the recipe recovered it — the acquire in progress at the drop
 * ended ok, and as it did exactly one child carried the create's name, the one read after the drop, on the same
 * session. No such child after the drop is a miss: nothing shows the create took effect.
 */
export const judge: Judge<'reply-loss-create'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  const made = () => Object.entries(e?.after ?? {}).filter(([, owner]) => owner !== NO_SESSION);
  return tell(start, 'reply-loss-create', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no reply to a create of ${who} was dropped`);
      return done(
        `the reply to ${who}'s create of ${e.path ?? 'a node'} was dropped on ${e.droppedOn.join(', ')} and the connection reset`,
      );
    },
    committed: () => {
      if (e?.path === undefined) return missing('the dropped create named no path to look for');
      if (e.readError !== undefined) return missing(`the lock directory was not read after the drop: ${e.readError}`);
      const { dir, base } = splitPath(e.path);
      const nodes = made();
      if (!nodes.length) {
        const persistent = Object.keys(e.after ?? {});
        return missing(
          persistent.length
            ? `${dir} held ${persistent.join(', ')}, none ephemeral: not a lock node's create`
            : `no child of ${dir} carried ${base} right after the drop: nothing shows the create took effect`,
        );
      }
      const named = nodes.map(([n, owner]) => `${n} (session 0x${owner})`).join(', ');
      return done(`right after the drop ${dir} held ${named}`);
    },
    recovered: () => {
      const at = e?.droppedAt;
      if (at === undefined) return missing('the drop has no time on record');
      const acquire = inProgressAt(shot.byProcess.get(holder) ?? [], 'acquire', at, shot.history);
      if (!acquire) return missing(`no acquire of ${who} was in progress at the drop`);
      const completion = shot.history.completionOf(acquire);
      if (completion?.type !== 'ok') {
        const how = completion ? `${completion.type}${completion.error ? ` (${completion.error})` : ''}` : 'no answer';
        return missing(`${who}'s acquire #${acquire.index} ended ${how}: the recipe did not recover its node`);
      }
      const atGrant = Object.entries(e?.atGrant ?? {});
      if (e?.atGrant === undefined) return missing(`the lock directory was not read as ${who}'s acquire was granted`);
      const before = new Map(made());
      if (atGrant.length !== 1)
        return missing(
          `as ${who}'s acquire #${completion.index} was granted, ${atGrant.length} children carried its name (${atGrant.map(([n]) => n).join(', ') || 'none'}): ${atGrant.length > 1 ? 'a second node' : 'its node was gone'}`,
        );
      const [[node, owner]] = atGrant;
      if (before.get(node) !== owner)
        return missing(`${who} was granted holding ${node}, not the node the dropped create made on that session`);
      return done(
        `${who}'s acquire #${completion.index} ended ok holding ${node}, the node the dropped create made, and no second`,
      );
    },
  });
};
