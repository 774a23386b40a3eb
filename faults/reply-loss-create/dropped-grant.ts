import { acquireHit, type GrantReader } from '../judging/dropped-grant.ts';

/** A ZooKeeper node's ephemeral owner when it has none (a persistent node: a lock directory, never a lock). */
const NO_SESSION = '0';

/**
 * reply-loss-create's dropped grant (faults/judging/dropped-grant.ts): committed as its judge has it — a child named
 * by the create's path, ephemeral to a session, read right after the drop — with the children carrying that name as
 * the acquire was granted (two: the retry made a second node). ZooKeeper has no PTTL: the node lives as long as its
 * session.
 */
export const droppedGrant: GrantReader<'reply-loss-create'> = (shot) => {
  const { start, ev } = shot;
  const e = ev.end;
  const process = e?.process ?? ev.start.process;
  if (!e || process === undefined || e.droppedAt === undefined || e.readError !== undefined) return null;
  if (!Object.values(e.after ?? {}).some((owner) => owner !== NO_SESSION)) return null;
  const hit = acquireHit(shot, process, e.droppedAt);
  if (!hit) return null;
  return {
    f: start.f,
    shot: start.index,
    process,
    held: 'its lock node',
    droppedAt: e.droppedAt,
    ttlMs: ev.start.ttlMs ?? null,
    pttlMs: null,
    ...hit,
    ...(e.atGrant ? { nodesAtGrant: Object.keys(e.atGrant).sort() } : {}),
  };
};
