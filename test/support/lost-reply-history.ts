import type { Op } from '../../history/op.ts';
import { fail, history, info, invoke, ok, type Event } from './test-history.ts';

/**
 * Literal histories of lost replies (checkers/lost-replies/), in ms on the run's clock: `ordered(...)` seals them in
 * time order as the journal does. The reply-loss faults' records carry the evidence their inject.ts writes.
 */

/** The event at `t` ms. */
export const at = (t: number, e: Event): Event => ({ ...e, time: t * 1e6 });

export const ordered = (...events: (Event | Event[])[]): Op[] =>
  history(...events.flat().sort((a, b) => (a.time ?? 0) - (b.time ?? 0)));

const nemesis = (t: number, f: string, phase: 'start' | 'end', params: Record<string, unknown>): Event =>
  at(t, { process: 'nemesis', type: 'info', f, value: { phase, targets: [`client p${params.process}`], params } });

/** An acquire of account 0 by `p` from `t0` to `t1`, ending ok, fail, info (timed out) or never (`open`). */
export function acquire(p: number, t0: number, t1: number, outcome: 'ok' | 'fail' | 'info' | 'open' = 'ok'): Event[] {
  const value = { account: 0 };
  const start = at(t0, invoke(p, 'acquire', value));
  // Still waiting when the harness read the accounts at `t1`: the history goes on to there.
  if (outcome === 'open') return [start, at(t1, invoke('harness', 'final-read', value))];
  const end =
    outcome === 'ok'
      ? ok(p, 'acquire', value)
      : outcome === 'fail'
        ? fail(p, 'acquire', value, 'not-acquired')
        : info(p, 'acquire', value, 'Command timed out');
  return [start, at(t1, end)];
}

/** A release of account 0 by `p` from `t0` to `t1` that returned ok (`released: true`). */
export const release = (p: number, t0: number, t1: number): Event[] => [
  at(t0, invoke(p, 'release', { account: 0 })),
  at(t1, ok(p, 'release', { account: 0, released: true })),
];

/**
 * A reply-loss-acquire shot on p's SET: armed at `t0`, the reply dropped at `droppedAt`, healed at `t1`. By default
 * committed (the key held the value the SET wrote) with the PTTL `pttlMs` read right after the drop.
 */
export function acquireReplyLost(
  p: number,
  t: { t0: number; droppedAt: number; t1: number },
  end: Record<string, unknown> = {},
  pttlMs = 1_980,
): Event[] {
  return [
    nemesis(t.t0, 'reply-loss-acquire', 'start', { slot: p, process: p, ttlMs: 2000 }),
    nemesis(t.t1, 'reply-loss-acquire', 'end', {
      process: p,
      droppedOn: ['redis[0]'],
      key: 'lock:account-0',
      sent: 'token-p',
      valuesAfter: { 'redis[0]': 'token-p' },
      pttlAfterMs: { 'redis[0]': pttlMs },
      unanswered: [],
      droppedAt: t.droppedAt * 1e6,
      ...end,
    }),
  ];
}

/** A reply-loss-create shot on p's create: the node made (ephemeral to session abc), `atGrant` as read at the grant. */
export function createReplyLost(
  p: number,
  t: { t0: number; droppedAt: number; t1: number },
  atGrant?: Record<string, string>,
): Event[] {
  return [
    nemesis(t.t0, 'reply-loss-create', 'start', { slot: p, process: p, ttlMs: 2000 }),
    nemesis(t.t1, 'reply-loss-create', 'end', {
      process: p,
      droppedOn: ['zk[0]'],
      path: '/fencepost/account-0/_c_p1-lock-',
      after: { '_c_p1-lock-0000000001': 'abc' },
      ...(atGrant ? { atGrant } : {}),
      droppedAt: t.droppedAt * 1e6,
    }),
  ];
}

/**
 * A reply-loss-pg-lock shot on p's pg_advisory_lock: armed at `t0`, the reply dropped at `droppedAt`, healed at `t1`;
 * committed by default (backend 4242 of p's lock session held the key right after the drop). The lock has no lease.
 */
export function pgLockReplyLost(
  p: number,
  t: { t0: number; droppedAt: number; t1: number },
  end: Record<string, unknown> = {},
): Event[] {
  const session = `fencepost-lock-client-${p}`;
  return [
    nemesis(t.t0, 'reply-loss-pg-lock', 'start', {
      slot: p,
      process: p,
      session,
      noLease: 'a session advisory lock lasts as long as its Postgres session',
    }),
    nemesis(t.t1, 'reply-loss-pg-lock', 'end', {
      process: p,
      droppedOn: ['pg'],
      statement: 'SELECT pg_advisory_lock(-1409283, 77)',
      key: '-1409283,77',
      after: { '4242': '-1409283,77' },
      droppedAt: t.droppedAt * 1e6,
      ...end,
    }),
  ];
}
