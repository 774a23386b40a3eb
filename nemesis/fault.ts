import { seededShuffle } from '../common/seeded-shuffle.ts';
import type { ClusterNode } from '../cluster/node.ts';
import type { SectionFeed } from './critical-sections.ts';
import type { FailoverPair } from './failover-pair.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { EndParams, StartParams } from '../faults/evidence.ts';
import type { FaultNeeds } from './fault-needs.ts';
import type { RedisKeyProbe } from './redis-key-probe.ts';
import type { NemesisConfig, NemesisEnv } from './nemesis.ts';
import type { LockServerCounts } from './lock-servers.ts';

/**
 * A fault as the schedule sees it: what to do (the executor), where (resolved by the executor when it starts,
 * from the run's live state: the holder, the leader, the masters holding a key), when (the schedule) and for how
 * long (`holdMs` of the injection). Executors are thin: they act, describe what they did, and undo it.
 */
export interface FaultExecutor<F extends FaultName = FaultName> {
  readonly name: F;
  /** What the run must prepare for this fault (the clock shim, a failover pair, …) and how long it must last. */
  readonly needs: FaultNeeds;
  /**
   * Why this fault can never act on a lock served by `servers` (the strategy's declaration): no Redis master for
   * `restart-empty`, a Go server's clock for `clock`, … Known before anything boots, so the run is refused
   * (exit 254, harness/strategy-options.ts) rather than injecting nothing. Null when it can act.
   */
  refusal(servers: LockServerCounts, lock: string): string | null;
  /**
   * Why the run's options leave this fault nothing to act on (a renewal story without --watchdog), or null. Known
   * before anything boots too, so it is refused there with the option to give, not found once the servers run.
   */
  optionRefusal?(config: Readonly<NemesisConfig>): string | null;
  /**
   * Why this fault can't apply to this run as it was built (its refusal first, then what only the live run
   * knows: the clock shim built, a route of its own), or null when it can.
   */
  unavailable(env: NemesisEnv): string | null;
  /**
   * Inject the fault and resolve once it is in effect. Resolves null when there was no opportunity (no client
   * entered its critical section in time, the run was aborted while waiting): nothing was changed then.
   * Must not inject anything once `ctx.signal` is aborted.
   */
  start(ctx: FaultContext): Promise<Injection<F> | null>;
}

/** A fault in effect. Its description goes into the history's `start` record. */
export interface Injection<F extends FaultName = FaultName> {
  /** Human-readable targets: `client p3 (pid 4242)`, `redis[1]`, `etcd leader etcd[2]`, … */
  targets: string[];
  /** The fault's evidence of what it did (faults/<name>/facts.ts), which its judge reads back. */
  params?: StartParams<F>;
  note?: string;
  /**
   * How long to leave it in effect before `heal` (cut short when the run ends); with `ready`, the longest it holds.
   */
  holdMs: number;
  /**
   * For a fault that waits for its story: settles once the story took the step the hold waits for (another client
   * took the lock and wrote), and the hold then ends early. The fault undoes its own watching in `heal`.
   */
  ready?: Promise<unknown>;
  /**
   * Undo it. Called exactly once, also when the run is aborted during the hold. Must not throw for a target
   * that is already gone. What it returns goes into the `end` record.
   */
  heal(): Promise<Healed<F> | void>;
}

/** What a heal returns for the `end` record: its evidence (faults/<name>/facts.ts) and a note. */
export interface Healed<F extends FaultName = FaultName> {
  params?: EndParams<F>;
  note?: string;
}

/** What an executor gets: the run, a seeded random stream of its own, and the harness's view of the clients. */
export interface FaultContext extends NemesisEnv {
  random: () => number;
  /** Aborted when the run ends or heal() is called: stop waiting and don't inject. */
  signal: AbortSignal;
  /**
   * Aborted when `signal` is, and also once a strike now could no longer finish the fault's story before the clients
   * stop (its `needs.shotMs`): an aimed fault waits for its section on this one, so it never strikes too late.
   */
  aim: AbortSignal;
  /**
   * Aborted when the run is interrupted (Ctrl-C, SIGTERM, the parent gone): a heal skips any wait it owes a
   * normal end (restart-empty's remaining downtime), since the nodes are about to be stopped anyway.
   */
  interrupted: AbortSignal;
  sections: SectionFeed;
  /**
   * A scripted step that names its servers (`restart-empty A on redis[0..2]`, scenario/scenario-steps.ts): an aimed
   * fault strikes only these of the nodes holding the key. Absent: the fault chooses, as on a schedule.
   */
  only?: ReadonlySet<string>;
  /**
   * The client slot a scripted step names (`reply-loss-acquire A`): a fault that picks a random client on a schedule
   * strikes this one. Absent on a schedule.
   */
  slot?: number;
  /** The request a scripted step names by its command (`hold-request A SET`). Absent on a schedule. */
  request?: string;
  /** Nodes a fault killed and has not restarted yet: heal() restarts whatever is left here. */
  down: Set<ClusterNode>;
  /** The primary/replica pair when the run has one (the `failover` fault). */
  pair: FailoverPair | null;
  /** Which Redis nodes hold a key, asked over connections kept open. */
  redisKeys: RedisKeyProbe;
}

/** A random element (seeded). */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/**
 * The client a fault that strikes one client aims at: the one a scripted step names (`ctx.slot`), else a random one,
 * among the running (not paused, not exited) clients that `reaches`; null when there is none, or the aim is over.
 */
export function aimedClient(
  ctx: Pick<FaultContext, 'clients' | 'random' | 'slot' | 'aim'>,
  reaches: (slot: number) => boolean,
): FaultContext['clients']['clients'][number] | null {
  const candidates = ctx.clients.clients.filter((c) => !c.paused && !c.exited && reaches(c.slot));
  if (!candidates.length || ctx.aim.aborted) return null;
  return ctx.slot === undefined ? pick(ctx.random, candidates) : (candidates.find((c) => c.slot === ctx.slot) ?? null);
}

/** `k` distinct random elements (seeded), in their original order. */
export function pickSome<T>(random: () => number, items: readonly T[], k: number): T[] {
  return seededShuffle(
    random,
    items.map((_, i) => i),
  )
    .slice(0, Math.max(0, k))
    .sort((a, b) => a - b)
    .map((i) => items[i]);
}
