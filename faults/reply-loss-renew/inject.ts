import type { EndParams } from '../evidence.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import {
  renewalStoryOptions,
  renewalStoryUnavailable,
  readKeys,
  splitKeys,
  redisAimRefusal,
  redisRoutes,
  waitForDrops,
  type Route,
} from '../reply-loss/inject.ts';

/** How long reply-loss-renew waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** What a renewal's request contains: fencepost's extend-if-owner script (locks/parts/redis-scripts.ts) calls PEXPIRE. */
const RENEW_COMMAND = 'PEXPIRE';

/**
 * A renewal reaches Redis and extends the lease; its reply never comes back. Aimed at the next client to enter its
 * critical section: its own proxies in front of the Redis nodes are armed to drop the reply to its next request that
 * extends (its watchdog's renewal, --watchdog), and the connection is then kept open as a black hole, so the watchdog
 * times out not knowing the lease was extended. The keys are read on the nodes' own ports as the section begins and
 * right after the drop: the owner's value still there with a PTTL grown past what the time between the reads left of
 * it is the server's effect; anything else is a miss.
 *
 * The fault ends (heal: the black hole reset) once the holder's renewal has completed, or after the story wait.
 */
/** What the renewal it aims at would have been: the start of its refusal when there is none. */
const RENEWAL_STORY = 'it aims at a renewal';

const redisRenewRefusal = redisAimRefusal(
  'reply-loss-renew',
  'a renewal by its Redis command (a script that extends: PEXPIRE)',
);

export const replyLossRenew: FaultExecutor<'reply-loss-renew'> = {
  name: 'reply-loss-renew',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) => noRenewRequest(servers, lock) ?? redisRenewRefusal(servers, lock),
  optionRefusal: (config) => renewalStoryOptions(config, RENEWAL_STORY),
  unavailable: (env) =>
    replyLossRenew.refusal(env.servers, env.config.lock) ?? renewalStoryUnavailable(env, RENEWAL_STORY),
  async start(ctx) {
    const { clients, config, journal } = ctx;
    let routes: Route[] = [];
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) =>
        !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && redisRoutes(ctx, s.slot).length > 0,
      (s) => {
        routes = redisRoutes(ctx, s.slot);
        for (const r of routes) {
          r.dropsBefore = r.proxy.droppedReplies().length;
          r.proxy.dropNextReply({ command: RENEW_COMMAND, then: 'keep-open' });
        }
      },
    );
    if (!section) return null;
    const readFrom = performance.now();
    const before = await readKeys(ctx, routes, section.account);
    const { values: ownerValues, pttlMs } = splitKeys(before);
    const nowNs = () => journal.sinceOrigin(process.hrtime.bigint());
    const outcome: Outcome = { droppedOn: [], valuesAfter: {}, pttlAfterMs: {}, unanswered: [] };
    let stopWatch = () => {};
    // Ended by the heal too: a heal a script orders right after the renewal waits for the reads, never races them.
    const healing = new AbortController();
    const reads = (async () => {
      outcome.droppedOn = await waitForDrops(routes, AbortSignal.any([ctx.signal, healing.signal]));
      if (!outcome.droppedOn.length) return false;
      outcome.droppedAt = nowNs();
      const dropped = routes.filter((r) => outcome.droppedOn.includes(r.node.name));
      const after = splitKeys(await readKeys(ctx, dropped, section.account));
      Object.assign(outcome, { valuesAfter: after.values, pttlAfterMs: after.pttlMs, unanswered: after.unanswered });
      outcome.readsApartMs = Math.round(performance.now() - readFrom);
      return true;
    })();
    // The renewal's completion: the watchdog's fail (its command timed out) comes with its invoke.
    const renewed = () =>
      new Promise<void>((resolve) => {
        stopWatch = journal.onOp((op) => {
          if (
            op.f === 'renew' &&
            op.type !== 'invoke' &&
            (op.value as { account?: number })?.account === section.account
          )
            resolve();
        });
      });
    const ready = reads.then((dropped) => (dropped ? renewed() : undefined));
    return {
      targets: [`client p${section.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: {
        slot: section.slot,
        process: section.process,
        account: section.account,
        readIndex: section.readIndex,
        ttlMs: config.ttlMs,
        ownerValues,
        pttlMs,
      },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        healing.abort();
        await reads;
        stopWatch();
        for (const r of routes) r.proxy.heal();
        return { params: endParams(section, outcome), note: healNote(section.process, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  valuesAfter: Record<string, string>;
  pttlAfterMs: Record<string, number>;
  unanswered: string[];
  readsApartMs?: number;
  droppedAt?: number;
}

function endParams(s: { process: number; account: number }, o: Outcome): EndParams<'reply-loss-renew'> {
  const params: EndParams<'reply-loss-renew'> = {
    process: s.process,
    account: s.account,
    droppedOn: o.droppedOn,
    valuesAfter: o.valuesAfter,
    pttlAfterMs: o.pttlAfterMs,
    unanswered: o.unanswered,
  };
  if (o.readsApartMs !== undefined) params.readsApartMs = o.readsApartMs;
  if (o.droppedAt !== undefined) params.droppedAt = o.droppedAt;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `p${process}'s renewal reply was never dropped (no renewal seen while armed)`;
  return `p${process}'s renewal reply was dropped on ${o.droppedOn.join(', ')}`;
}

/**
 * Why a lock on ZooKeeper or in Postgres has no renewal's reply to drop (issue 46's renew aims there), or null.
 *
 * ZooKeeper: its locks are ephemeral nodes that live as long as the client's session, and the session is kept by the
 * client library's pings, not by a request of the lock's. Dropping a ping's reply would be a shot with no evidence to
 * read: the server refreshes a session on any packet and shows no session's expiry to anyone outside it, so
 * "committed" could not be proven, and the client only sees a connection it times out and replaces.
 *
 * Postgres: no lock there renews — ShedLock's lease row (sql-lease, sql-lease-dbtime) is taken for one lockAtMostFor
 * and never extended, the advisory locks have no lease at all, and --lock=postgres takes no lock.
 */
export function noRenewRequest(servers: { zk: number }, lock: string): string | null {
  if (servers.zk)
    return `--lock=${lock} renews nothing by a request of its own: its lock node lives as long as its ZooKeeper session, which the client's pings keep, and the server shows no session's expiry a dropped ping's reply could be proven by`;
  const row = (LOCK_ROWS as Record<string, LockRow | undefined>)[lock];
  if (row?.place.store === 'Postgres')
    return `--lock=${lock} keeps its lock in Postgres, where no lock renews: sql-lease and sql-lease-dbtime take their lease row for one TTL and never extend it, the advisory locks have no lease, and --lock=postgres takes no lock`;
  return null;
}
