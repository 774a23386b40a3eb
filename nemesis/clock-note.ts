import type { NodeKind } from '../cluster/node.ts';
import { shimCannotMove } from '../faults/clock-shim.ts';

/**
 * What a wall-clock offset can't do to some servers, said in the history rather than left for a reader to
 * discover: a skew that has no effect must not look like a lock that survived one.
 */
export function clockNote(kinds: Iterable<NodeKind>): string | undefined {
  const notes: string[] = [];
  const set = new Set(kinds);
  if (set.has('etcd')) {
    notes.push(`etcd ignores the skew: ${shimCannotMove('etcd')}`);
  }
  if (set.has('zk'))
    notes.push(
      'ZooKeeper expires sessions on a monotonic clock (System.nanoTime): its wall clock moves, session timeouts are not expected to',
    );
  return notes.length ? notes.join('; ') : undefined;
}
