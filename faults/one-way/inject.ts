import { setTimeout as sleepFor } from 'node:timers/promises';
import type { EndParams } from '../evidence.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import {
  readKeys,
  splitKeys,
  redisRoutes,
  renewalStoryOptions,
  renewalStoryUnavailable,
  type Route,
} from '../reply-loss/inject.ts';

/** How long one-way waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** How often the wait for a held reply looks at the proxies' counters. */
const HELD_POLL_MS = 2;

/** A holder's route with its count of reply bytes held before the fault. */
type HeldRoute = Route & { heldBefore: number };

/**
 * Replies lost on the way back while requests flow (Toxiproxy's downstream `timeout`): aimed at the next client to
 * enter its critical section, its own proxies in front of the Redis nodes hold every reply to it (one-way mode,
 * nemesis/proxy/proxy-mode.ts) for --pause ms, or until the script's heal, then deliver them in order. Its watchdog
 * (--watchdog) renews meanwhile: the renewal reaches Redis, which extends the key, and the reply waits in the proxy.
 * The keys are read on the nodes' own ports as the hold begins and again once the first reply is held: the holder's
 * value still there with a PTTL past what the time between the reads left of the first is the renewal's effect.
 *
 * Held, never dropped: the holder's Redis client matches replies to requests in order, so a dropped reply would
 * make it read the next one as the lost one's answer — the harness's failure, not the lock's.
 */
/** The opening of its refusal when the options leave no renewal to hold the replies of. */
const ONE_WAY_STORY = 'its story is a renewal the holder never hears of';

export const oneWay: FaultExecutor<'one-way'> = {
  name: 'one-way',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) =>
    servers.redis
      ? null
      : `--lock=${lock} uses no Redis node: one-way tells a hit by a renewal read on Redis (the holder's key, its PTTL); etcd's, ZooKeeper's and Postgres's server effect is not read yet`,
  optionRefusal: (config) => renewalStoryOptions(config, ONE_WAY_STORY),
  unavailable: (env) => oneWay.refusal(env.servers, env.config.lock) ?? renewalStoryUnavailable(env, ONE_WAY_STORY),
  async start(ctx) {
    const { clients, config, journal } = ctx;
    let routes: HeldRoute[] = [];
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) =>
        !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && redisRoutes(ctx, s.slot).length > 0,
      (s) => {
        // Inside the journal listener, as the holder begins its section: no renewal of it slips through unheld.
        routes = redisRoutes(ctx, s.slot).map((r) => ({ ...r, heldBefore: r.proxy.counters().heldToClient }));
        for (const r of routes) r.proxy.oneWay('hold');
      },
    );
    if (!section) return null;
    const readFrom = performance.now();
    const before = await readKeys(ctx, routes, section.account);
    const { values: ownerValues, pttlMs } = splitKeys(before);
    const outcome: Outcome = { heldOn: [], valuesAfter: {}, pttlAfterMs: {}, unanswered: [] };
    // Ended by the heal too: a heal the script orders waits for these reads, never races them.
    const healing = new AbortController();
    const reads = (async () => {
      outcome.heldOn = await waitForHeldReplies(routes, AbortSignal.any([ctx.signal, healing.signal]));
      if (!outcome.heldOn.length) return;
      outcome.heldAt = journal.sinceOrigin(process.hrtime.bigint());
      const held = routes.filter((r) => outcome.heldOn.includes(r.node.name));
      const after = splitKeys(await readKeys(ctx, held, section.account));
      Object.assign(outcome, { valuesAfter: after.values, pttlAfterMs: after.pttlMs, unanswered: after.unanswered });
      outcome.readsApartMs = Math.round(performance.now() - readFrom);
    })();
    return {
      targets: [`client p${section.process} ← ${routes.map((r) => r.node.name).join(', ')}`],
      params: {
        slot: section.slot,
        process: section.process,
        account: section.account,
        readIndex: section.readIndex,
        ttlMs: config.ttlMs,
        ownerValues,
        pttlMs,
      },
      holdMs: config.pauseMs,
      async heal() {
        healing.abort();
        await reads;
        const heldReplyBytes = Object.fromEntries(
          routes.map((r) => [r.node.name, r.proxy.counters().heldToClient - r.heldBefore]),
        );
        for (const r of routes) r.proxy.heal();
        return { params: endParams(section, outcome, heldReplyBytes), note: healNote(section.process, outcome) };
      },
    };
  },
};

interface Outcome {
  heldOn: string[];
  valuesAfter: Record<string, string>;
  pttlAfterMs: Record<string, number>;
  unanswered: string[];
  readsApartMs?: number;
  heldAt?: number;
}

/** Waits until some route held reply bytes (then gives the others a moment: Redlock's fan-out); their nodes. */
async function waitForHeldReplies(routes: HeldRoute[], signal: AbortSignal): Promise<string[]> {
  const held = () => routes.filter((r) => r.proxy.counters().heldToClient > r.heldBefore).map((r) => r.node.name);
  while (!signal.aborted && held().length === 0) await sleepFor(HELD_POLL_MS, undefined, { signal }).catch(() => {});
  if (signal.aborted || held().length === routes.length) return held();
  await sleepFor(HELD_POLL_MS * 5, undefined, { signal }).catch(() => {});
  return held();
}

function endParams(
  s: { process: number; account: number },
  o: Outcome,
  heldReplyBytes: Record<string, number>,
): EndParams<'one-way'> {
  const params: EndParams<'one-way'> = {
    process: s.process,
    account: s.account,
    heldOn: o.heldOn,
    heldReplyBytes,
    valuesAfter: o.valuesAfter,
    pttlAfterMs: o.pttlAfterMs,
    unanswered: o.unanswered,
  };
  if (o.readsApartMs !== undefined) params.readsApartMs = o.readsApartMs;
  if (o.heldAt !== undefined) params.heldAt = o.heldAt;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.heldOn.length) return `no reply to p${process} was held (it sent nothing Redis answered while the fault held)`;
  return `the replies to p${process} were held on ${o.heldOn.join(', ')}, then delivered`;
}
