import { setTimeout as sleepFor } from 'node:timers/promises';
import type { EndParams } from '../evidence.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { lockSessionName } from '../../workloads/lock-session-name.ts';
import { watchRelease } from '../reply-loss/inject.ts';
import { type Holds, statementKey } from '../reply-loss-pg-lock/advisory-holds.ts';
import { lockRoute, noLockRoute, pgAimRefusal, readHolds, waitForDrop } from '../reply-loss-pg-lock/inject.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';

/** How long reply-loss-pg-unlock waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** The statement aimed at: advisory-lock's release, `SELECT pg_advisory_unlock(k1, k2)`. */
const UNLOCK_STATEMENT = 'pg_advisory_unlock';

/** How long a heal waits for a drop that has not come yet (the request sent just before it). */
const DROP_GRACE_MS = 1_000;

/**
 * A release reaches Postgres and frees the lock; its reply never comes back. Aimed at the next client to enter its
 * critical section: its own proxy in front of Postgres for its lock sessions (client-routes.ts LOCK_SESSIONS, framed
 * as Postgres) is armed to drop the reply to its next `pg_advisory_unlock`, and the connection is kept open as a black
 * hole, so the client waits not knowing. pg_locks is read for the sessions named for the client as the section begins
 * and right after the drop (over the harness's own superuser session): the backend that held the key still there and
 * holding it no more is the server's effect; still holding it is a release that never took effect (a miss), and a
 * backend gone tells nothing (its session's end frees the lock too).
 *
 * The fault ends (heal: the black hole reset, as TCP gives up a dead path) once the holder's release has completed
 * — it failed or timed out — or after the story wait.
 */
export const replyLossPgUnlock: FaultExecutor<'reply-loss-pg-unlock'> = {
  name: 'reply-loss-pg-unlock',
  needs: {
    ownClientRoutes: true,
    lockSessionRoutes: true,
    clientProxies: true,
    liveOps: true,
    shotMs: pastTheLease,
  },
  refusal: pgAimRefusal('reply-loss-pg-unlock', 'a release by its statement (SELECT pg_advisory_unlock(…))'),
  unavailable: (env) => replyLossPgUnlock.refusal(env.servers, env.config.lock) ?? noLockRoute(env),
  async start(ctx) {
    const { clients, config, journal } = ctx;
    if (!ctx.cluster.pg) return null;
    ctx.cluster.pg.warmAdmin();
    let proxy: TcpProxy | undefined;
    let dropsBefore = 0;
    // Watched from the moment of the strike: with a short --think the release may follow the read before the server is.
    let release: ReturnType<typeof watchRelease> | undefined;
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) =>
        !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && lockRoute(ctx, s.slot) !== undefined,
      (s) => {
        proxy = lockRoute(ctx, s.slot)!;
        release = watchRelease(journal, s.process);
        dropsBefore = proxy.droppedReplies().length;
        proxy.dropNextReply({ command: UNLOCK_STATEMENT, then: 'keep-open' });
      },
    );
    if (!section || !release || !proxy) return null;
    const route = proxy;
    const released = release;
    const session = lockSessionName(section.slot);
    const start: { before: Holds; beforeError?: string } = { before: {} };
    try {
      start.before = await readHolds(ctx, session);
    } catch (err) {
      start.beforeError = err instanceof Error ? err.message : String(err);
    }
    const outcome: Outcome = { droppedOn: [], after: {} };
    // Ended by the heal too: a heal a script orders right after the release waits for the read, never races it.
    const healing = new AbortController();
    const reads = (async () => {
      if (!(await waitForDrop(route, dropsBefore, AbortSignal.any([ctx.signal, healing.signal])))) return false;
      outcome.droppedOn = ['pg'];
      outcome.statement = route.droppedReplies().at(-1)!.request.detail;
      outcome.key = statementKey(outcome.statement);
      try {
        outcome.after = await readHolds(ctx, session);
      } catch (err) {
        outcome.readError = err instanceof Error ? err.message : String(err);
      }
      return true;
    })();
    const ready = reads.then((dropped) => (dropped ? released.completed : undefined));
    return {
      targets: [`client p${section.process} → pg (its lock sessions)`],
      params: {
        slot: section.slot,
        account: section.account,
        readIndex: section.readIndex,
        process: section.process,
        session,
        ...start,
      },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        // The client's release waits for its reply until the heal, so a script heals right after sending it: the drop
        // may still be on its way then, and gets a moment (a scheduled heal comes after the drop, or long after).
        const grace = new AbortController();
        await Promise.race([reads, sleepFor(DROP_GRACE_MS, undefined, { signal: grace.signal }).catch(() => {})]);
        grace.abort();
        healing.abort();
        await reads;
        released.stop();
        route.heal();
        const params = endParams(section, outcome, released.invokeTime());
        return { params, note: healNote(section.process, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  statement?: string;
  key?: string;
  after: Holds;
  readError?: string;
}

function endParams(
  s: { process: number; account: number },
  o: Outcome,
  releaseTime: number | undefined,
): EndParams<'reply-loss-pg-unlock'> {
  const params: EndParams<'reply-loss-pg-unlock'> = {
    process: s.process,
    account: s.account,
    droppedOn: o.droppedOn,
    after: o.after,
  };
  if (o.statement !== undefined) params.statement = o.statement;
  if (o.key !== undefined) params.key = o.key;
  if (o.readError !== undefined) params.readError = o.readError;
  if (releaseTime !== undefined) params.releaseTime = releaseTime;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `p${process}'s unlock reply was never dropped (no unlock seen while armed)`;
  return `p${process}'s ${o.statement ?? 'unlock'} reply was dropped`;
}
