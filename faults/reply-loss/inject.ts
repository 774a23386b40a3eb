import { setTimeout as sleepFor } from 'node:timers/promises';
import type { RedisServer } from '../../cluster/node.ts';
import type { EndParams } from '../evidence.ts';
import { clientRoutes } from '../../nemesis/client-routes.ts';
import type { FaultContext, FaultExecutor } from '../../nemesis/fault.ts';
import type { NemesisConfig } from '../../nemesis/nemesis.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';
import { everyRedisMaster } from '../../nemesis/lock-servers.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { runTiming } from '../../common/run-timing.ts';
import { committed, serverEffect } from './server-effect.ts';

/** How long reply-loss waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** How often the wait for the drop looks at the proxies' records of dropped replies. */
const DROP_POLL_MS = 2;
/**
 * What a request the proxy aims at contains: Redis `DEL`, or a script that deletes — fencepost's compare-and-delete
 * release (locks/parts/redis-scripts.ts), which a renewal's script (it extends: PEXPIRE) is told from.
 */
const RELEASE_COMMAND = 'DEL';
/** The locks whose release is such a request (their own recipes); a plugin's or a package's may be anything. */
export const AIMABLE_LOCKS = ['redis', 'redlock'];

/**
 * The refusal every Redis reply-loss fault shares: a lock without Redis, or one whose requests it cannot tell apart
 * (`aimsAt`: which request it aims at, and how it knows it).
 */
export function redisAimRefusal(fault: string, aimsAt: string) {
  return (servers: { redis: number }, lock: string): string | null =>
    !servers.redis
      ? `--lock=${lock} uses no Redis node`
      : AIMABLE_LOCKS.includes(lock)
        ? null
        : `${fault} aims at ${aimsAt}, known for --lock=${AIMABLE_LOCKS.join(', ')} only`;
}

/** Why a run's clients give a Redis reply-loss fault nothing to aim at: no proxies of their own. */
export function noOwnRedisRoutes(env: Parameters<typeof redisRoutes>[0]): string | null {
  return redisRoutes(env, 0).length ? null : 'the clients do not reach Redis through proxies of their own';
}

/**
 * Why the options leave a fault whose story is the holder's watchdog renewal nothing to aim at: no --watchdog (`story`
 * says what the renewal would have been), or a section that ends before the first renewal. One sentence set for
 * reply-loss-renew and one-way, so they refuse alike — before anything boots (FaultExecutor.optionRefusal).
 */
export function renewalStoryOptions(config: Readonly<NemesisConfig>, story: string): string | null {
  const { watchdogEveryMs } = runTiming(config);
  if (!config.watchdog) return `${story}, and without --watchdog the clients never renew: give --watchdog`;
  if (config.thinkMs < watchdogEveryMs)
    return `a section of --think=${config.thinkMs} ms ends before the watchdog's first renewal (every ${watchdogEveryMs} ms): give --think=${watchdogEveryMs + 200} or more`;
  return null;
}

/** The same in the live run, and then the clients' own routes. */
export function renewalStoryUnavailable(
  env: Parameters<NonNullable<FaultExecutor['unavailable']>>[0],
  story: string,
): string | null {
  return renewalStoryOptions(env.config, story) ?? noOwnRedisRoutes(env);
}

/** The holder's Redis routes, each with the node behind it (`redis[0]`). */
export type Route = { node: RedisServer; proxy: TcpProxy; dropsBefore?: number };

/**
 * A request reaches the server and takes effect; its reply never comes back. Aimed at the next client to enter its
 * critical section: each of its own proxies in front of a Redis node (client-routes.ts, framed as RESP) is armed to
 * drop the reply to its next release — the request goes through, Redis deletes the key, the reply is dropped and
 * the connection is kept open as a black hole, so the client times out not knowing. The keys are read on the nodes'
 * own ports as the section begins (the owner's value, its PTTL) and again right after the drop: gone or changed
 * within the PTTL is the server's effect; still the owner's is a release that never took effect — a miss.
 *
 * The fault ends (heal: the black hole reset, as TCP gives up a dead path) once the holder's release has completed
 * — it failed or timed out — or after `--pause`'s story wait at most.
 */
export const replyLoss: FaultExecutor<'reply-loss'> = {
  name: 'reply-loss',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: redisAimRefusal('reply-loss', 'a release by its Redis command (DEL, or a script that deletes)'),
  unavailable: (env) => replyLoss.refusal(env.servers, env.config.lock) ?? noOwnRedisRoutes(env),
  async start(ctx) {
    const { clients, config, journal } = ctx;
    let routes: Route[] = [];
    // Watched from the moment of the strike, in the journal listener: with a short --think the release may follow
    // the read before the keys are read.
    let release: ReturnType<typeof watchRelease> | undefined;
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) =>
        !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && redisRoutes(ctx, s.slot).length > 0,
      (s) => {
        routes = redisRoutes(ctx, s.slot);
        release = watchRelease(journal, s.process);
        for (const r of routes) {
          // A proxy keeps every drop since its start: this shot's is the one after those of earlier shots.
          r.dropsBefore = r.proxy.droppedReplies().length;
          r.proxy.dropNextReply({ command: RELEASE_COMMAND, then: 'keep-open' });
        }
      },
    );
    if (!section || !release) return null;
    const released = release;
    const readFrom = performance.now();
    const before = await readKeys(ctx, routes, section.account);
    const outcome: Outcome = { droppedOn: [], valuesAfter: {}, unanswered: [] };
    // Ended by the heal too: a heal a script orders right after the release waits for these reads, never races them.
    const healing = new AbortController();
    const reads = (async () => {
      outcome.droppedOn = await waitForDrops(routes, AbortSignal.any([ctx.signal, healing.signal]));
      if (!outcome.droppedOn.length) return false;
      const dropped = routes.filter((r) => outcome.droppedOn.includes(r.node.name));
      const after = splitKeys(await readKeys(ctx, dropped, section.account));
      outcome.valuesAfter = after.values;
      outcome.unanswered = after.unanswered;
      outcome.readsApartMs = Math.round(performance.now() - readFrom);
      return true;
    })();
    const ready = reads.then((dropped) => (dropped ? released.completed : undefined));
    const { values: ownerValues, pttlMs } = splitKeys(before);
    return {
      targets: [`client p${section.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: { ...sectionParams(section), ttlMs: config.ttlMs, ownerValues, pttlMs },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        healing.abort();
        await reads;
        released.stop();
        for (const r of routes) r.proxy.heal();
        const params = endParams(section, outcome, released.invokeTime(), ownerValues, pttlMs);
        return { params, note: healNote(section.process, params) };
      },
    };
  },
};

/** What the wait after the strike found: where the reply was dropped, and the keys read right after. */
interface Outcome {
  droppedOn: string[];
  valuesAfter: Record<string, string>;
  unanswered: string[];
  readsApartMs?: number;
}

function sectionParams(s: { slot: number; process: number; account: number; readIndex: number }) {
  return { slot: s.slot, process: s.process, account: s.account, readIndex: s.readIndex };
}

/** Client `slot`'s own proxies in front of the Redis nodes, each with its node. */
export function redisRoutes(
  ctx: Pick<FaultContext, 'proxies' | 'cluster'> & { pair?: FaultContext['pair'] },
  slot: number,
): Route[] {
  const own = clientRoutes(ctx.proxies, slot);
  return everyRedisMaster(ctx.cluster, ctx.pair ?? null).flatMap((m) => {
    const proxy = own.get(m.proxy);
    return proxy ? [{ node: m.node, proxy }] : [];
  });
}

/** The account's key on each route's node, read on its own port (not through any proxy). */
/** The account's owner key on each route's node, read on the node's own port (not through any proxy). */
export async function readKeys(ctx: FaultContext, routes: Route[], account: number) {
  const keys = await Promise.all(routes.map((r) => ctx.redisKeys.ownerKey(r.node, account)));
  return Object.fromEntries(routes.map((r, i) => [r.node.name, keys[i]]));
}

/**
 * What `readKeys` found, as the Redis reply-loss faults and one-way record it: each node's owner value and PTTL where
 * it held the key, and the nodes that did not answer (nothing is concluded for them).
 */
export function splitKeys(read: Awaited<ReturnType<typeof readKeys>>) {
  const values: Record<string, string> = {};
  const pttlMs: Record<string, number> = {};
  const unanswered: string[] = [];
  for (const [node, key] of Object.entries(read)) {
    if (key === undefined) unanswered.push(node);
    else if (key !== null) {
      values[node] = key.value;
      pttlMs[node] = key.pttlMs;
    }
  }
  return { values, pttlMs, unanswered };
}

/** Waits until some route dropped its aimed reply (then gives the others a moment: Redlock's fan-out). */
export async function waitForDrops(routes: Route[], signal: AbortSignal): Promise<string[]> {
  const dropped = () =>
    routes.filter((r) => r.proxy.droppedReplies().length > (r.dropsBefore ?? 0)).map((r) => r.node.name);
  while (!signal.aborted && dropped().length === 0) await sleepFor(DROP_POLL_MS, undefined, { signal }).catch(() => {});
  if (signal.aborted || dropped().length === routes.length) return dropped();
  await sleepFor(DROP_POLL_MS * 5, undefined, { signal }).catch(() => {});
  return dropped();
}

/** The holder's next release: its invoke's time stamp, and a promise settled once it completed. */
export function watchRelease(journal: FaultContext['journal'], holder: number) {
  let invokeTime: number | undefined;
  const watch = watchFor(journal, (op) => {
    if (op.process !== holder || op.f !== 'release') return false;
    if (op.type === 'invoke') invokeTime ??= op.time;
    return op.type !== 'invoke' && invokeTime !== undefined;
  });
  return { completed: watch.seen, stop: watch.stop, invokeTime: () => invokeTime };
}

function endParams(
  section: { process: number; account: number },
  o: Outcome,
  releaseTime: number | undefined,
  ownerValues: Record<string, string>,
  pttlMs: Record<string, number>,
): EndParams<'reply-loss'> {
  const effect = serverEffect({ ...o, ownerValues, pttlMs, readsApartMs: o.readsApartMs });
  const params: EndParams<'reply-loss'> = {
    hit: o.droppedOn.length > 0 && committed(effect),
    process: section.process,
    account: section.account,
    droppedOn: o.droppedOn,
    valuesAfter: o.valuesAfter,
    unanswered: o.unanswered,
  };
  if (o.readsApartMs !== undefined) params.readsApartMs = o.readsApartMs;
  if (releaseTime !== undefined) params.releaseTime = releaseTime;
  return params;
}

/** The `end` record's note: what the drop found on the server. */
function healNote(process: number, p: EndParams<'reply-loss'>): string {
  if (!p.droppedOn.length) return `p${process}'s release reply was never dropped (no release seen while armed)`;
  if (p.hit) return `p${process}'s release committed on ${p.droppedOn.join(', ')}; its reply was dropped`;
  return `p${process}'s release reply was dropped on ${p.droppedOn.join(', ')}, but no server effect was read`;
}
