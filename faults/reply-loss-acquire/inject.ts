import type { EndParams } from '../evidence.ts';
import { aimedClient, type FaultContext, type FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { AIMABLE_LOCKS, noOwnRedisRoutes, redisRoutes, waitForDrops, type Route } from '../reply-loss/inject.ts';
import type { Frame } from '../../nemesis/proxy/framing.ts';

/** A SET NX that took the key answers `+OK`; one that found it held answers nil, and did nothing on the server. */
const GRANTED_REPLY = '+OK';

/**
 * An acquire reaches Redis and is granted; its reply never comes back. A random live client's own proxies in front
 * of the Redis nodes (client-routes.ts, framed as RESP) are armed to drop the reply to its next `SET` that Redis
 * answered OK — a `SET NX` that found the key held did nothing, so its reply passes and the aim waits for the next.
 * The connection is then kept open as a black hole, so the client times out not knowing it holds the key (ioredis's
 * command timeout; the client loop then drops its connections and reconnects). Right after the drop the key the SET
 * named is read on the nodes' own ports: the value the SET wrote is the server's effect — Redis holds a lock no live
 * client believes it holds until the TTL; anything else is a miss.
 *
 * Another lock on Redis (a plugin: the gallery's reentrant lock) is aimed at by its next request, whatever it is —
 * armed before its acquire, as a script arms it, that is the acquire's first — and read back by what that request
 * named: a SET's key and value, an EVAL's first key and its arguments. The key holding one of those (a string equal to
 * it, or a hash with a field by that name: a reentrant lock's owner) is the server's effect; anything else a miss.
 *
 * The fault ends (heal: the black hole reset) once that client's acquire has completed, or after the story wait.
 */
/**
 * What a Redis client sends on its own, not for the lock: ioredis's connect (AUTH, HELLO, CLIENT, SELECT), its ready
 * check (INFO), keep-alives (PING). A plugin's aim is its next request but these: a shot that dropped an INFO's reply
 * had no key to read back, and the gallery's reentrant-resend scenario missed its story (CI, stop 57).
 */
export const CONNECTION_CHATTER = ['AUTH', 'HELLO', 'CLIENT', 'SELECT', 'INFO', 'PING', 'READONLY'] as const;

export const replyLossAcquire: FaultExecutor<'reply-loss-acquire'> = {
  name: 'reply-loss-acquire',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) => (servers.redis ? null : `--lock=${lock} uses no Redis node`),
  unavailable: (env) => replyLossAcquire.refusal(env.servers, env.config.lock) ?? noOwnRedisRoutes(env),
  async start(ctx) {
    const { config, journal } = ctx;
    const client = aimedClient(ctx, (slot) => redisRoutes(ctx, slot).length > 0);
    if (!client) return null;
    const routes = redisRoutes(ctx, client.slot);
    const known = AIMABLE_LOCKS.includes(config.lock);
    for (const r of routes) {
      r.dropsBefore = r.proxy.droppedReplies().length;
      r.proxy.dropNextReply(
        known
          ? { command: 'SET', replyIs: GRANTED_REPLY, then: 'keep-open' }
          : { except: CONNECTION_CHATTER, then: 'keep-open' },
      );
    }
    const nowNs = () => journal.sinceOrigin(process.hrtime.bigint());
    const outcome: Outcome = { droppedOn: [], valuesAfter: {}, pttlAfterMs: {}, unanswered: [], holdCountsAfter: {} };
    // The acquire in progress at the drop completes (with the invoke, which a client sends with its completion) after
    // the drop: the first acquire completion of this client's process from then on.
    let completed: ReturnType<typeof watchFor> | undefined;
    // Ended by the heal too: a heal a script orders right after the acquire waits for the read, never races it.
    const healing = new AbortController();
    // A client that resends on a new connection hears that one's answer, never the dropped reply: counted as the
    // acquire completes, so the judge can tell a resend's grant from the dropped one's.
    let connectionsAtDrop = 0;
    const reads = (async () => {
      outcome.droppedOn = await waitForDrops(routes, AbortSignal.any([ctx.signal, healing.signal]));
      if (!outcome.droppedOn.length) return false;
      outcome.droppedAt = nowNs();
      completed = watchFor(
        journal,
        (op) => op.process === client.process && op.f === 'acquire' && op.type !== 'invoke',
      );
      const dropped = routes.filter((r) => outcome.droppedOn.includes(r.node.name));
      connectionsAtDrop = connectionsOf(dropped);
      const request = lastDrop(dropped[0]).request;
      if (known) {
        outcome.key = request.detail;
        outcome.sent = request.value;
        if (outcome.key !== undefined) await readValues(ctx, dropped, outcome.key, outcome);
      } else await readWhatItNamed(ctx, dropped, request, outcome);
      return true;
    })();
    const ready = reads.then((dropped) =>
      dropped
        ? completed?.seen.then((op) => {
            const on = routes.filter((r) => outcome.droppedOn.includes(r.node.name));
            outcome.newConnectionsBeforeAnswer = connectionsOf(on) - connectionsAtDrop;
            return op;
          })
        : undefined,
    );
    return {
      targets: [`client p${client.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: { slot: client.slot, process: client.process, ttlMs: config.ttlMs },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        healing.abort();
        await reads;
        completed?.stop();
        for (const r of routes) r.proxy.heal();
        const params = endParams(client.process, outcome);
        return { params, note: healNote(client.process, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  key?: string;
  sent?: string;
  valuesAfter: Record<string, string>;
  pttlAfterMs: Record<string, number>;
  unanswered: string[];
  droppedAt?: number;
  /** A hash key's count under the owner's field, by node (a reentrant lock's holds). */
  holdCountsAfter: Record<string, number>;
  newConnectionsBeforeAnswer?: number;
  request?: string;
}

/** How many connections the client has opened through these routes so far. */
function connectionsOf(routes: Route[]): number {
  return routes.reduce((n, r) => n + r.proxy.counters().connections, 0);
}

function lastDrop(r: Route) {
  return r.proxy.droppedReplies().at(-1)!;
}

/**
 * The key's value on each node whose reply was dropped, read on its own port (not through any proxy), then its PTTL
 * where it held one: how long the server keeps the orphaned key (-1: for ever).
 */
async function readValues(ctx: FaultContext, routes: Route[], key: string, o: Outcome) {
  const values = await Promise.all(routes.map((r) => ctx.redisKeys.valueOf(r.node, key)));
  const pttls = await Promise.all(
    routes.map((r, i) => (typeof values[i] === 'string' ? ctx.redisKeys.pttlOf(r.node, key) : undefined)),
  );
  routes.forEach((r, i) => {
    const v = values[i];
    const pttl = pttls[i];
    if (v === undefined) o.unanswered.push(r.node.name);
    else if (v !== null) o.valuesAfter[r.node.name] = v;
    // -2: the key expired between the two reads; nothing to add.
    if (pttl !== undefined && pttl >= -1) o.pttlAfterMs[r.node.name] = pttl;
  });
}

/**
 * A plugin's request read back: the key it named (an EVAL's first key, else its second word) on each node whose reply
 * was dropped, and which of the values it carried (a SET's value, an EVAL's arguments) the key holds — as its string
 * value, or as a hash field's name (a reentrant lock's owner). That one is what it wrote (`sent`); a node whose key
 * holds none of them records what it held instead, and a miss follows.
 */
async function readWhatItNamed(ctx: FaultContext, routes: Route[], request: Frame, o: Outcome) {
  const key = request.keys?.[0] ?? request.detail;
  if (request.name !== undefined) o.request = request.name;
  if (key === undefined) return;
  o.key = key;
  const carried = request.value !== undefined ? [request.value] : (request.args ?? []);
  const contents = await Promise.all(routes.map((r) => ctx.redisKeys.contentOf(r.node, key)));
  const pttls = await Promise.all(routes.map((r, i) => (contents[i] ? ctx.redisKeys.pttlOf(r.node, key) : undefined)));
  routes.forEach((r, i) => {
    const c = contents[i];
    if (c === undefined) return o.unanswered.push(r.node.name);
    if (c === null) return;
    const held = carried.find((v) => ('value' in c ? c.value === v : 'fields' in c && Object.hasOwn(c.fields, v)));
    if (held !== undefined) o.sent ??= held;
    o.valuesAfter[r.node.name] =
      held ?? ('value' in c ? c.value : 'fields' in c ? `hash of ${Object.keys(c.fields).join(', ')}` : c.type);
    if ('fields' in c && held !== undefined) o.holdCountsAfter[r.node.name] = Number(c.fields[held]);
    const pttl = pttls[i];
    if (pttl !== undefined && pttl >= -1) o.pttlAfterMs[r.node.name] = pttl;
  });
}

function endParams(process: number, o: Outcome): EndParams<'reply-loss-acquire'> {
  const params: EndParams<'reply-loss-acquire'> = {
    process,
    droppedOn: o.droppedOn,
    valuesAfter: o.valuesAfter,
    pttlAfterMs: o.pttlAfterMs,
    unanswered: o.unanswered,
  };
  if (o.request !== undefined) params.request = o.request;
  if (o.key !== undefined) params.key = o.key;
  if (o.sent !== undefined) params.sent = o.sent;
  if (o.droppedAt !== undefined) params.droppedAt = o.droppedAt;
  if (Object.keys(o.holdCountsAfter).length) params.holdCountsAfter = o.holdCountsAfter;
  if (o.newConnectionsBeforeAnswer !== undefined) params.newConnectionsBeforeAnswer = o.newConnectionsBeforeAnswer;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `no granted acquire of p${process} was seen while armed`;
  const held = o.droppedOn.filter((n) => o.sent !== undefined && o.valuesAfter[n] === o.sent);
  return held.length
    ? `p${process}'s acquire was granted on ${held.join(', ')}; its reply was dropped`
    : `p${process}'s acquire reply was dropped on ${o.droppedOn.join(', ')}, but its value was not read back`;
}
