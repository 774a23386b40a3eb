import type { Quantiles } from '../checkers/run-results.ts';
import type { Goal } from './outcome.ts';
import type { History } from '../history/history.ts';
import { quantiles } from '../checkers/op-stats.ts';
import type { FloorName, OverheadBench } from '../locks/lock-bench.ts';
import type { LockRow } from '../locks/lock-row.ts';
import { LOCK_ROWS, type BuiltinLock } from '../locks/registry.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';

/**
 * Latency quantiles (ms) of the ok `f` ops of client processes invoked at least `warmupMs` after the first client
 * op: a run's steady state. The floors are measured warm (after warm-up pairs on servers that have served
 * thousands of ops); a run's servers and client process start cold (the JVM and V8 compile as they go), so its
 * first seconds are not like for like.
 */
export function steadyLatency(history: History, f: string, warmupMs: number): Quantiles {
  const clientPairs = history.pairs.filter((p) => typeof p.invoke.process === 'number');
  const start = Math.min(...clientPairs.map((p) => p.invoke.time));
  const from = start + warmupMs * 1e6;
  return quantiles(
    clientPairs
      .filter((p) => p.invoke.f === f && p.completion?.type === 'ok' && p.invoke.time >= from)
      .map((p) => (p.completion!.time - p.invoke.time) / 1e6),
  );
}

/**
 * Where a ZooKeeper acquire's time goes, measured apart on one member (bench/overhead.ts), paced like the floor: the
 * member's role, the bare create (the floor), the recipe's bare round trips (create, then children and the node's
 * stat in parallel — what the strategy sends, without its code), and the strategy's own acquire (its code and
 * node-zookeeper-client), each on a session to that member alone.
 */
export interface ZkParts {
  member: number;
  mode: string | null;
  create: Quantiles;
  recipe: Quantiles;
  strategy: Quantiles;
}

/**
 * The ZooKeeper gap by cause, as medians over the members of each part's p50 (a run's session lands on one member
 * at random): the recipe's round trips against the floor's one create, and the strategy's code and client library
 * on top of the recipe, both measured apart from any run; which member leads.
 */
export function zkAttribution(parts: readonly ZkParts[]): string {
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const create = mid(parts.map((p) => p.create.p50));
  const recipe = mid(parts.map((p) => p.recipe.p50));
  const strategy = mid(parts.map((p) => p.strategy.p50));
  const leader = parts.find((p) => p.mode === 'leader');
  const byMember = parts.map((p) => `${p.mode ?? '?'} ${p.strategy.p50.toFixed(2)}`).join(' / ');
  return (
    `measured apart: the recipe's second round trip (children + the node's stat, for the czxid token) +${(recipe - create).toFixed(3)} ms over one create, ` +
    `the strategy and node-zookeeper-client +${(strategy - recipe).toFixed(3)} ms over the recipe; strategy acquire by member ${byMember} ms` +
    (leader ? ` (leader: member ${leader.member})` : '')
  );
}

/** The bare operations the overhead benchmark times (see bench/overhead.ts): each measured lock's row names its own. */
export type { FloorName };

/** Recorded p50 may be at most this many times its floor's p50: the overhead goal (docs/performance.md). */
export const OVERHEAD_GOAL_RATIO = 1.5;

/** The locks the overhead benchmark measures by default: the rows that say how (locks/<name>/row.ts `bench`). */
export const OVERHEAD_LOCKS: readonly string[] = BUILTIN_LOCKS.filter((l) => overheadOf(l));

function overheadOf(lock: string): OverheadBench | undefined {
  return Object.hasOwn(LOCK_ROWS, lock) ? (LOCK_ROWS[lock as BuiltinLock] as LockRow).bench?.overhead : undefined;
}

/** How one lock is measured: its floor (Redlock and the redlock package ask all 5 masters: 5 SETs in parallel). */
export function overheadFor(lock: string): OverheadBench {
  const o = overheadOf(lock);
  if (o) return o;
  throw new Error(`overhead: no floor for --lock=${lock}; it measures ${OVERHEAD_LOCKS.join(', ')}`);
}

/** What one lock is compared with. */
export function floorFor(lock: string): FloorName {
  return overheadFor(lock).floor;
}

export interface OverheadRow {
  lock: string;
  floor: FloorName;
  /** The run's quantiles past its warm-up (a lock that takes none: its write as `acquire`): steadyLatency. */
  recorded: { acquire: Quantiles; release: Quantiles };
  /** The bare op back to back, straight to the port (a hot loop). */
  floorDirect: { acquire: Quantiles; release: Quantiles };
  /** The bare op back to back through one of the harness's proxies. */
  floorProxied: { acquire: Quantiles; release: Quantiles };
  /**
   * The bare op straight to the port, after the same seeded 0–20 ms idle gap a run's client waits between
   * iterations (client-loop.ts's stagger): what the op costs paced as the harness paces it. Absent in rows
   * written before it was measured.
   */
  floorPaced?: { acquire: Quantiles; release: Quantiles };
  /**
   * The strategy's own acquire/release without the harness (bench/overhead.ts strategyAlone): the same module and
   * context a run's client uses, called from the benchmark's process, paced like the floor. Absent for a lock timed on its write
   * (no lock: its floor is its own write) and in rows written before it was measured.
   */
  strategyAlone?: { acquire: Quantiles; release: Quantiles };
  /** The run's ops before this (ms from its first client op) are left out of `recorded`: its warm-up. */
  warmupMs?: number;
  /** results.json's quantiles of the timed op over the whole run, warm-up included. */
  recordedWholeRun?: Quantiles;
  /** How the run's clients reached the server: a run with no network fault connects straight to the port. */
  clientNetwork?: 'direct' | 'proxied';
  ops: number;
}

/**
 * One row's goal: recorded acquire p50 ≤ 1.5 × the floor's p50, the floor paced as the run's client is (when
 * measured; else back to back). A run without network faults connects its clients straight to the servers, so the
 * like-for-like floor is the paced direct op. A miss says where the difference goes, in ms: pacing (paced − back to
 * back), the proxy (through the proxy − direct, when the run's clients used it), and the rest — split, when the
 * strategy was measured alone, into the lock's own code and client library (alone − floor) and what the harness
 * and the client process around the strategy add (recorded − alone).
 */
export function overheadGoal(row: OverheadRow, zkParts?: readonly ZkParts[]): Goal {
  const what = overheadFor(row.lock).timed;
  const hot = row.floorDirect.acquire.p50;
  const floor = row.floorPaced?.acquire.p50 ?? hot;
  const recorded = row.recorded.acquire.p50;
  const ratio = recorded / floor;
  const met = ratio <= OVERHEAD_GOAL_RATIO;
  const proxy = row.clientNetwork === 'direct' ? 0 : row.floorProxied.acquire.p50 - hot;
  const rest = recorded - floor - proxy;
  const alone = row.strategyAlone?.acquire.p50;
  const split = [
    ...(row.floorPaced ? [`pacing +${(floor - hot).toFixed(3)} ms`] : []),
    ...(row.clientNetwork === 'direct' ? [] : [`proxy +${proxy.toFixed(3)} ms`]),
    ...(alone === undefined
      ? [`strategy + client library +${rest.toFixed(3)} ms`]
      : [
          `the lock's own code + client library, measured alone +${(alone - floor).toFixed(3)} ms`,
          `harness + client process +${(recorded - proxy - alone).toFixed(3)} ms`,
        ]),
    ...(zkParts?.length ? [zkAttribution(zkParts)] : []),
  ];
  return {
    what: `${row.lock} ${what} p50 recorded vs bare ${row.floor}${row.floorPaced ? ' (paced)' : ''}, 1 client`,
    goal: `≤ ${OVERHEAD_GOAL_RATIO}× floor`,
    measured: `${recorded.toFixed(3)} / ${floor.toFixed(3)} ms = ${ratio.toFixed(2)}× (${(recorded / hot).toFixed(2)}× back to back)`,
    met,
    ...(met ? {} : { why: split.join(', ') }),
  };
}

/**
 * What the harness itself adds, with the lock's own cost taken out: recorded acquire p50 ≤ 1.5 × the same strategy's
 * acquire called alone (same module, same context, same pacing, no harness, no client process). Undefined for a row
 * without that measurement.
 */
export function harnessShareGoal(row: OverheadRow): Goal | undefined {
  const alone = row.strategyAlone?.acquire.p50;
  if (alone === undefined) return undefined;
  const recorded = row.recorded.acquire.p50;
  const ratio = recorded / alone;
  const met = ratio <= OVERHEAD_GOAL_RATIO;
  return {
    what: `${row.lock} acquire p50 recorded vs the strategy alone (paced, no harness), 1 client`,
    goal: `≤ ${OVERHEAD_GOAL_RATIO}× alone`,
    measured: `${recorded.toFixed(3)} / ${alone.toFixed(3)} ms = ${ratio.toFixed(2)}×`,
    met,
    ...(met
      ? {}
      : {
          why: `the harness and the client process add +${(recorded - alone).toFixed(3)} ms to the lock's own acquire`,
        }),
  };
}
