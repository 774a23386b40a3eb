import { endOf } from '../fault-hits.ts';
import { evidenceOf, headerOf } from '../../faults/evidence.ts';
import { accountOf, inProgressAt } from '../../faults/judging/story-steps.ts';
import type { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';

/** A ZooKeeper node's ephemeral owner when it has none (a persistent node: a lock directory, never a lock). */
const NO_SESSION = '0';

/**
 * A grant the server made whose reply was lost: a reply-loss-acquire shot (a `SET NX` Redis answered OK) or a
 * reply-loss-create shot (a ZooKeeper lock node), read from the fault's own evidence and the acquire it hit. Only
 * committed ones — the server's effect read right after the drop, by the same rule as the fault's judge — are kept:
 * a drop with no server effect orphaned nothing.
 */
export interface DroppedGrant {
  f: 'reply-loss-acquire' | 'reply-loss-create';
  /** History index of the fault's start record. */
  shot: number;
  process: number;
  account: number;
  /** When the reply was dropped (ns, the history's clock). */
  droppedAt: number;
  /** The lock's TTL (session timeout) as the fault recorded it; null: not recorded. */
  ttlMs: number | null;
  /** The key's PTTL read right after the drop (ms; -1: it never expires); null: not read (ZooKeeper, older runs). */
  pttlMs: number | null;
  /** The acquire in progress at the drop, and how it ended (null: it never did before the history ended). */
  acquire: Op;
  completion: Op | null;
  /** ZooKeeper: the nodes carrying the create's name as that acquire was granted (absent: not read, or not granted). */
  nodesAtGrant?: string[];
}

const FAULTS = ['reply-loss-acquire', 'reply-loss-create'] as const;

/** Every committed dropped grant in the history, in shot order. Pure. */
export function droppedGrants(history: History): DroppedGrant[] {
  const out: DroppedGrant[] = [];
  for (const op of history.ops) {
    if (op.process !== 'nemesis' || op.type === 'fail' || headerOf(op).phase !== 'start') continue;
    const f = FAULTS.find((x) => x === op.f);
    if (!f) continue;
    const grant = f === 'reply-loss-acquire' ? redisGrant(history, op) : zkGrant(history, op);
    if (grant) out.push(grant);
  }
  return out;
}

/** The acquire a drop at `at` hit, and the account it asked for. */
function aimed(history: History, process: number, at: number): { acquire: Op; account: number } | null {
  const ops = history.ops.filter((o) => o.process === process);
  const acquire = inProgressAt(ops, 'acquire', at, history);
  const account = acquire && accountOf(acquire);
  return acquire && account !== undefined ? { acquire, account } : null;
}

function redisGrant(history: History, start: Op): DroppedGrant | null {
  const ev = evidenceOf('reply-loss-acquire', start, endOf(history.ops, start));
  const e = ev.end;
  const process = e?.process ?? ev.start.process;
  if (!e || process === undefined || e.droppedAt === undefined || e.sent === undefined) return null;
  const dropped = e.droppedOn ?? [];
  // Committed as the judge has it: the sent value under the key on every node whose reply was dropped.
  if (!dropped.length || dropped.some((n) => e.valuesAfter?.[n] !== e.sent)) return null;
  const hit = aimed(history, process, e.droppedAt);
  if (!hit) return null;
  const pttls = dropped.map((n) => e.pttlAfterMs?.[n]).filter((x): x is number => x !== undefined);
  return {
    f: 'reply-loss-acquire',
    shot: start.index,
    process,
    account: hit.account,
    droppedAt: e.droppedAt,
    ttlMs: ev.start.ttlMs ?? null,
    // The longest-lived copy decides when the lock is free again; one that never expires (-1) outlives them all.
    pttlMs: pttls.length ? (pttls.includes(-1) ? -1 : Math.max(...pttls)) : null,
    acquire: hit.acquire,
    completion: history.completionOf(hit.acquire) ?? null,
  };
}

function zkGrant(history: History, start: Op): DroppedGrant | null {
  const ev = evidenceOf('reply-loss-create', start, endOf(history.ops, start));
  const e = ev.end;
  const process = e?.process ?? ev.start.process;
  if (!e || process === undefined || e.droppedAt === undefined || e.readError !== undefined) return null;
  // Committed as the judge has it: a child named by the create's path, ephemeral to a session.
  if (!Object.values(e.after ?? {}).some((owner) => owner !== NO_SESSION)) return null;
  const hit = aimed(history, process, e.droppedAt);
  if (!hit) return null;
  return {
    f: 'reply-loss-create',
    shot: start.index,
    process,
    account: hit.account,
    droppedAt: e.droppedAt,
    ttlMs: ev.start.ttlMs ?? null,
    pttlMs: null,
    acquire: hit.acquire,
    completion: history.completionOf(hit.acquire) ?? null,
    ...(e.atGrant ? { nodesAtGrant: Object.keys(e.atGrant).sort() } : {}),
  };
}

/** The first acquire of `account` that completed ok after `sinceNs`, by any client: the server had let the lock go. */
export function nextGrant(history: History, account: number, sinceNs: number): Op | undefined {
  return history.bank.acquires
    .filter((p) => accountOf(p.invoke) === account)
    .map((p): Op | null => p.completion)
    .filter((c): c is Op => !!c && c.type === 'ok' && c.time > sinceNs)
    .sort((a, b) => a.time - b.time)[0];
}
