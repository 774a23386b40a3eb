import { acquireHit, type GrantReader } from '../judging/dropped-grant.ts';
import { holdersOf } from './advisory-holds.ts';

/**
 * reply-loss-pg-lock's dropped grant (faults/judging/dropped-grant.ts): committed as its judge has it — the advisory
 * key granted to a backend of the client's lock session, read right after the drop. The lock has no lease (no TTL,
 * no PTTL): the server keeps it until that session ends, which the orphan's yardstick says (`noLease`).
 */
export const droppedGrant: GrantReader<'reply-loss-pg-lock'> = (shot) => {
  const { start, ev } = shot;
  const e = ev.end;
  const process = e?.process ?? ev.start.process;
  if (!e || process === undefined || e.droppedAt === undefined || e.key === undefined || e.readError !== undefined)
    return null;
  const backends = holdersOf(e.after, e.key);
  if (!backends.length) return null;
  const hit = acquireHit(shot, process, e.droppedAt);
  if (!hit) return null;
  return {
    f: start.f,
    shot: start.index,
    process,
    held: `its advisory lock (backend ${backends.join(', ')})`,
    droppedAt: e.droppedAt,
    ttlMs: null,
    pttlMs: null,
    noLease: ev.start.noLease ?? 'the lock has no lease',
    ...hit,
  };
};
