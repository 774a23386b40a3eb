import { setTimeout as sleep } from 'node:timers/promises';
import { aimAt, strikeNow, type Strike } from '../../nemesis/fault-aim.ts';
import type { Journal } from '../../history/journal.ts';
import type { RemoteFacts } from '../../cluster/node.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { everyRedisMaster } from '../../nemesis/lock-servers.ts';
import { nextKeyHolders } from '../../nemesis/key-holders.ts';
import { pastTheSection, widerThanARestart } from '../../nemesis/fault-needs.ts';

/** How long restart-empty waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * A Redis master restarts without the lock it granted, while the holder is inside its critical section:
 * SIGKILL, wipe its data dir, start again after `--restart-delay` ms with no persistence — so another client
 * can win the lock (the single node, or a Redlock majority) while the first still believes it holds it.
 *
 * Which masters: only those that hold the holder's key — every Redis node of the run is asked, on its real port,
 * so a plugin's keys are found wherever it puts them — and exactly as many of them as it takes for another client
 * to win the lock — `mastersToBreak` (3 when a Redlock holder got all 5 masters, 1 when it got 3, the one node
 * for --lock=redis or a single-node plugin such as examples/my-lock.ts). Why not one master, as in the spec's prose? A
 * holder without contention gets all 5 masters, and one empty master of 5 leaves the key on 4: no one else
 * can win, the fault would prove nothing, and the oracle's "lost" cell would never be measured. Why not all
 * of them? That also works, but the minimum is the sharper claim: losing that many at once is enough. They
 * are killed together and restarted together, as fast as we can, because the window is short: the holder
 * writes after its think time (--think, 100 ms by default) and another client must have acquired and read
 * before that for an update to be lost. When it misses, the next round aims again. A script's step may name the
 * masters instead (`on redis[0,1]`): all the named ones holding the key, even a minority (minority.ts).
 *
 * The variants that close the hole, as the spec says: `--restart-delay` ≥ the TTL (every lock the node granted
 * has expired before it answers again), and `--redis-persistence=aof-always` (the node is killed and restarted
 * with its AOF, which `appendfsync always` wrote before acknowledging the lock: the key comes back).
 */
/**
 * When the kill struck: now for our own servers (killed at once); for a target's, when the last adapter's kill
 * returned — a remote kill resolves only after the server is seen to stop answering and the adapter gave its evidence,
 * which may outlast the holder's section, though the server was gone before it ended.
 */
function struckAt(journal: Journal, victims: readonly { remote?: RemoteFacts }[]): Strike {
  const now = strikeNow(journal);
  const injected = victims.map((v) => v.remote?.injectedAt() ?? null);
  if (!injected.length || injected.some((t) => t === null)) return now;
  const last = injected.reduce((a, b) => (a! > b! ? a : b))!;
  return { atIndex: now.atIndex, atTime: Math.min(now.atTime, journal.sinceOrigin(last)) };
}

export const restartEmpty: FaultExecutor<'restart-empty'> = {
  name: 'restart-empty',
  needs: { liveOps: true, shotMs: pastTheSection, minSectionMs: widerThanARestart, onTarget: { adapter: 'kill' } },
  refusal: (servers, lock) => (servers.redis ? null : `--lock=${lock} uses no Redis master`),
  unavailable: (env) => restartEmpty.refusal(env.servers, env.config.lock),
  async start(ctx) {
    const { config } = ctx;
    const masters = everyRedisMaster(ctx.cluster, ctx.pair).map((m) => m.node);
    const keepData = config.redisPersistence === 'aof-always';
    const { found, skipped, lastSkip } = await nextKeyHolders(ctx, masters, performance.now() + AIM_TIMEOUT_MS);
    if (!found || ctx.aim.aborted) {
      if (skipped && !ctx.aim.aborted)
        ctx.log(
          `fencepost: nemesis: restart-empty: ${skipped} critical sections seen, none with its lock key (*account-<n>) where a restart could break it; the last: ${lastSkip}`,
        );
      return null;
    }
    const { section, holding, keys, keysOn, valuesOn, victims, needed } = found;
    await Promise.all(victims.map((v) => v.kill()));
    const killedAt = performance.now();
    const strike = struckAt(ctx.journal, victims);
    for (const v of victims) {
      ctx.down.add(v);
      if (!keepData) v.wipe();
    }
    // A target's servers (not ours): the adapter killed them, and each stopped answering — or did not. Whether a
    // restart came back without the key is what the servers answer after it (heal, below), not a wipe of ours.
    const remote = victims.every((v) => v.remote)
      ? victims.map((v): Record<string, unknown> => ({ node: v.name, ...v.remote!.lastEvidence() }))
      : null;
    return {
      targets: victims.map((v) => v.name),
      params: {
        keys,
        holder: `p${section.process}`,
        holding: holding.map((n) => n.name),
        masters: masters.length,
        killed: victims.map((n) => n.name),
        // The servers a scripted step named: its judge reads a named strike of fewer than `needed` as the minority
        // story (minority.ts), never a free run's shot.
        ...(ctx.only ? { named: [...ctx.only] } : {}),
        restartDelayMs: config.restartDelayMs,
        ttlMs: config.ttlMs,
        persistence: config.redisPersistence,
        ...(remote
          ? {
              evidenceFrom: victims[0].remote!.via,
              adapter: remote,
              unreachable: remote.every((e) => e.answered === false),
            }
          : { wiped: !keepData }),
        aim: aimAt(section, strike, { struck: victims.map((v) => v.name), keysOn, needed }),
      },
      note: keepData ? 'killed and restarted with its AOF (appendfsync always): the lock keys come back' : undefined,
      holdMs: config.restartDelayMs,
      async heal() {
        // The run's end cuts the hold short, but the clients still finish their operations after it: restarting
        // now would hand them a node empty *before* the delay ran out, the very hole --restart-delay closes (a
        // --restart-delay=TTL run lost an update to a kill 20 ms before the time limit). So the node stays down
        // for the whole delay when the run ends normally. An interrupt (Ctrl-C) owes it nothing: every node is
        // about to be stopped, and a Ctrl-C must not wait out a --restart-delay=60000.
        const owed = Math.round(killedAt + config.restartDelayMs - performance.now());
        const waitFrom = performance.now();
        if (owed > 0 && !ctx.interrupted.aborted) {
          await sleep(owed, undefined, { signal: ctx.interrupted }).catch(() => {});
        }
        const waited = Math.round(performance.now() - waitFrom);
        const t0 = performance.now();
        await Promise.all(victims.map((v) => v.start()));
        for (const v of victims) ctx.down.delete(v);
        const restartedInMs = Math.round(performance.now() - t0);
        // On a target, the servers say whether they came back empty: the account's key gone from every one of them.
        const back = remote ? await ctx.redisKeys.holding(victims, section.account) : null;
        return {
          params: {
            restartedInMs,
            ...(back ? { wiped: !keptTheHoldersKey(valuesOn, back.valuesOn), keysAfterRestart: back.keysOn } : {}),
            ...(owed > 0
              ? { downtimeWaitedOutMs: waited, ...(ctx.interrupted.aborted ? { interrupted: true } : {}) }
              : {}),
          },
        };
      },
    };
  },
};

/**
 * Whether a restarted target server still has the holder's key: the same key with the same value as when the fault
 * struck. A key of that name with another value is a new holder's, granted on the emptied server after its start
 * (CI: a waiting client re-acquired between the start and the question, and the shot read "answered again with the
 * key" — the lock passing — though the restart had emptied it). A value that could not be read is compared by name.
 */
export function keptTheHoldersKey(
  before: Record<string, Record<string, string | null>>,
  after: Record<string, Record<string, string | null>>,
): boolean {
  return Object.entries(after).some(([node, keys]) =>
    Object.entries(keys).some(([key, value]) => {
      const was = before[node]?.[key];
      if (was === undefined) return false;
      return was === null || value === null || was === value;
    }),
  );
}
