import { setTimeout as sleepFor } from 'node:timers/promises';
import type { EndParams } from '../evidence.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { aimedClient, type FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { lockSessionName } from '../../workloads/lock-session-name.ts';
import { LOCK_SESSIONS, clientRoutes } from '../../nemesis/client-routes.ts';
import type { FaultContext } from '../../nemesis/fault.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';
import { BUILTIN_LOCKS, isBuiltinLock } from '../../workloads/lock-names.ts';
import { type Holds, holdersOf, holdsOf, statementKey } from './advisory-holds.ts';

/** The statement aimed at: advisory-lock's acquire, `SELECT pg_advisory_lock(k1, k2)`. */
const LOCK_STATEMENT = 'pg_advisory_lock';
/** How long a heal waits for a drop that has not come yet (the request sent just before it). */
const DROP_GRACE_MS = 1_000;

/**
 * A granted lock's reply begins with RowDescription ('T'); one whose wait ran out (lock_timeout, 55P03) with
 * ErrorResponse ('E') and took nothing: its reply passes, and the aim waits for the next.
 */
const GRANTED_REPLY = 'T';

/**
 * An acquire reaches Postgres and is granted; its reply never comes back. A random live client's own proxy in front
 * of Postgres for its lock sessions (client-routes.ts LOCK_SESSIONS, framed as Postgres) is armed to drop the reply to
 * its next `pg_advisory_lock` that returned a row; the connection is then kept open as a black hole, so the client
 * waits not knowing it holds the lock. Right after the drop, pg_locks is read for the sessions named for the client
 * (over the harness's own superuser session, not through any proxy): the key the statement named, granted to one of
 * them, is the server's effect; anything else is a miss.
 *
 * The lock has no lease: Postgres keeps it as long as the session. The fault ends (heal: the black hole reset, as TCP
 * gives up a dead path, and the backend ends with its connection) once the client's acquire has completed, or after
 * the story wait; until then the lock is an orphan that no TTL bounds (checkers/lost-replies/orphaned-lock.ts).
 */
export const replyLossPgLock: FaultExecutor<'reply-loss-pg-lock'> = {
  name: 'reply-loss-pg-lock',
  needs: {
    ownClientRoutes: true,
    lockSessionRoutes: true,
    clientProxies: true,
    liveOps: true,
    shotMs: pastTheLease,
  },
  refusal: pgAimRefusal('reply-loss-pg-lock', 'an acquire by its statement (SELECT pg_advisory_lock(…), granted)'),
  unavailable: (env) => replyLossPgLock.refusal(env.servers, env.config.lock) ?? noLockRoute(env),
  async start(ctx) {
    const { config, journal } = ctx;
    ctx.cluster.pg?.warmAdmin();
    const client = aimedClient(ctx, (slot) => lockRoute(ctx, slot) !== undefined);
    if (!client || !ctx.cluster.pg) return null;
    const proxy = lockRoute(ctx, client.slot)!;
    const before = proxy.droppedReplies().length;
    proxy.dropNextReply({ command: LOCK_STATEMENT, replyIs: GRANTED_REPLY, then: 'keep-open' });
    const session = lockSessionName(client.slot);
    const outcome: Outcome = { droppedOn: [], after: {} };
    let completed: ReturnType<typeof watchFor> | undefined;
    // Ended by the heal too: a heal a script orders right after the acquire waits for the read, never races it.
    const healing = new AbortController();
    const reads = (async () => {
      if (!(await waitForDrop(proxy, before, AbortSignal.any([ctx.signal, healing.signal])))) return false;
      outcome.droppedAt = journal.sinceOrigin(process.hrtime.bigint());
      // The acquire in progress at the drop completes after it: the first acquire completion of this process now on.
      completed = watchFor(
        journal,
        (op) => op.process === client.process && op.f === 'acquire' && op.type !== 'invoke',
      );
      outcome.droppedOn = ['pg'];
      outcome.statement = proxy.droppedReplies().at(-1)!.request.detail;
      outcome.key = statementKey(outcome.statement);
      try {
        outcome.after = await readHolds(ctx, session);
      } catch (err) {
        outcome.readError = err instanceof Error ? err.message : String(err);
      }
      return true;
    })();
    const ready = reads.then((dropped) => (dropped ? completed?.seen : undefined));
    const noLease = (LOCK_ROWS as Record<string, LockRow | undefined>)[config.lock]?.noLease;
    return {
      targets: [`client p${client.process} → pg (its lock sessions)`],
      params: { slot: client.slot, process: client.process, session, ...(noLease ? { noLease } : {}) },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        // The client's acquire waits for its reply until the heal, so a script heals right after sending it: the drop
        // may still be on its way then, and gets a moment (a scheduled heal comes after the drop, or long after).
        const grace = new AbortController();
        await Promise.race([reads, sleepFor(DROP_GRACE_MS, undefined, { signal: grace.signal }).catch(() => {})]);
        grace.abort();
        healing.abort();
        await reads;
        completed?.stop();
        proxy.heal();
        return { params: endParams(client.process, outcome), note: healNote(client.process, outcome) };
      },
    };
  },
};

/**
 * The built-in locks whose lock is an advisory lock in a Postgres session of their own, opened on
 * LockContext.postgresUrl and named for the client (their row's `postgresSession`: advisory-lock@2.0.0, whose acquire
 * and release are `SELECT pg_advisory_lock(k1, k2)` / `pg_advisory_unlock(k1, k2)`): the statements the aim names,
 * and the sessions the server is read by.
 */
export const AIMABLE_LOCKS: readonly string[] = BUILTIN_LOCKS.filter(
  (l) => (LOCK_ROWS[l] as LockRow).postgresSession === true,
);

/** How often the wait for the drop looks at the proxy's record of dropped replies. */
const DROP_POLL_MS = 2;

/**
 * The refusal both faults share: a lock that keeps nothing in Postgres, or one whose lock is no advisory lock in a
 * session of its own (`--lock=postgres` takes none at all: its row says why).
 */
export function pgAimRefusal(fault: string, aimsAt: string) {
  return (_servers: unknown, lock: string): string | null => {
    if (AIMABLE_LOCKS.includes(lock)) return null;
    const row = isBuiltinLock(lock) ? (LOCK_ROWS[lock] as LockRow) : undefined;
    if (row && row.place.store !== 'Postgres') return `--lock=${lock} keeps no lock in Postgres`;
    const why = row?.noLease ? ` (its row: ${row.noLease})` : '';
    return `${fault} aims at ${aimsAt} on a Postgres session of the lock's own, known for --lock=${AIMABLE_LOCKS.join(', ')} only${why}`;
  };
}

/** Client `slot`'s own route for its lock's Postgres sessions (framed as Postgres), when the run made one. */
export function lockRoute(ctx: Pick<FaultContext, 'proxies'>, slot: number): TcpProxy | undefined {
  return clientRoutes(ctx.proxies, slot).get(LOCK_SESSIONS);
}

/** Why a run's clients give a Postgres reply-loss fault nothing to aim at. */
export function noLockRoute(env: Pick<FaultContext, 'proxies' | 'cluster'>): string | null {
  if (!env.cluster.pg) return 'the run has no Postgres';
  return lockRoute(env, 0) ? null : "the clients' lock sessions do not reach Postgres through proxies of their own";
}

/** Reads the sessions named `session` on the run's Postgres, over the superuser session kept open. */
export async function readHolds(ctx: Pick<FaultContext, 'cluster'>, session: string): Promise<Holds> {
  return holdsOf(await ctx.cluster.pg!.advisoryLocksOf(session));
}

/** Waits until the route dropped a reply after its first `before`; false when the wait was ended first. */
export async function waitForDrop(proxy: TcpProxy, before: number, signal: AbortSignal): Promise<boolean> {
  const dropped = () => proxy.droppedReplies().length > before;
  while (!signal.aborted && !dropped()) await sleepFor(DROP_POLL_MS, undefined, { signal }).catch(() => {});
  return dropped();
}

interface Outcome {
  droppedOn: string[];
  statement?: string;
  key?: string;
  after: Holds;
  readError?: string;
  droppedAt?: number;
}

function endParams(process: number, o: Outcome): EndParams<'reply-loss-pg-lock'> {
  const params: EndParams<'reply-loss-pg-lock'> = { process, droppedOn: o.droppedOn, after: o.after };
  if (o.statement !== undefined) params.statement = o.statement;
  if (o.key !== undefined) params.key = o.key;
  if (o.readError !== undefined) params.readError = o.readError;
  if (o.droppedAt !== undefined) params.droppedAt = o.droppedAt;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `no granted advisory lock of p${process} was seen while armed`;
  const holders = o.key === undefined ? [] : holdersOf(o.after, o.key);
  return holders.length
    ? `p${process}'s advisory lock ${o.key} was granted to backend ${holders.join(', ')}; its reply was dropped`
    : `p${process}'s advisory lock reply was dropped, but no session of it was read holding ${o.key ?? 'its key'}`;
}
