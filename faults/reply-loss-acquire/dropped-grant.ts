import { acquireHit, type GrantReader } from '../judging/dropped-grant.ts';

/**
 * reply-loss-acquire's dropped grant (faults/judging/dropped-grant.ts): committed as its judge has it — the value the
 * SET wrote under the key on every node whose reply was dropped — with the key's PTTL read right after the drop. The
 * longest-lived copy decides when the lock is free again; one that never expires (-1) outlives them all.
 */
export const droppedGrant: GrantReader<'reply-loss-acquire'> = (shot) => {
  const { start, ev } = shot;
  const e = ev.end;
  const process = e?.process ?? ev.start.process;
  if (!e || process === undefined || e.droppedAt === undefined || e.sent === undefined) return null;
  const dropped = e.droppedOn ?? [];
  if (!dropped.length || dropped.some((n) => e.valuesAfter?.[n] !== e.sent)) return null;
  const hit = acquireHit(shot, process, e.droppedAt);
  if (!hit) return null;
  const pttls = dropped.map((n) => e.pttlAfterMs?.[n]).filter((x): x is number => x !== undefined);
  return {
    f: start.f,
    shot: start.index,
    process,
    held: 'its key',
    droppedAt: e.droppedAt,
    ttlMs: ev.start.ttlMs ?? null,
    pttlMs: pttls.length ? (pttls.includes(-1) ? -1 : Math.max(...pttls)) : null,
    ...hit,
  };
};
