import { acquireHit, type GrantReader } from '../judging/dropped-grant.ts';

/**
 * reply-loss-etcd-acquire's dropped grant (faults/judging/dropped-grant.ts): committed as its judge has it — the key
 * holding the value the dropped Txn wrote, on the lease it named, read right after the drop. The key lives as long as
 * that lease: the client keeps it alive, so no PTTL bounds it.
 */
export const droppedGrant: GrantReader<'reply-loss-etcd-acquire'> = (shot) => {
  const { start, ev } = shot;
  const e = ev.end;
  const process = e?.process ?? ev.start.process;
  if (!e || process === undefined || e.droppedAt === undefined || e.sent === undefined) return null;
  if (e.valueAtCommit !== e.sent || e.leaseAtCommit !== e.lease) return null;
  const hit = acquireHit(shot, process, e.droppedAt);
  if (!hit) return null;
  return {
    f: start.f,
    shot: start.index,
    process,
    held: 'its key',
    droppedAt: e.droppedAt,
    ttlMs: ev.start.ttlMs ?? null,
    pttlMs: null,
    ...hit,
  };
};
