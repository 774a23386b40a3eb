import type { Quantiles } from '../checkers/run-results.ts';
import type { Goal } from './outcome.ts';

/** The bare operations the overhead benchmark times (see bench/overhead.ts). */
export type FloorName = 'redis' | 'redis×5' | 'etcd' | 'zookeeper' | 'postgres';

/** Recorded p50 may be at most this many times its floor's p50: the overhead goal (README, *Performance*). */
export const OVERHEAD_GOAL_RATIO = 1.5;

/** What one lock is compared with: Redlock and the redlock package ask all 5 masters, so 5 SETs in parallel. */
export function floorFor(lock: string): FloorName {
  if (lock === 'redis') return 'redis';
  if (lock === 'redlock' || lock === 'redlock-npm') return 'redis×5';
  if (lock === 'etcd' || lock === 'zookeeper' || lock === 'postgres') return lock;
  throw new Error(
    `overhead: no floor for --lock=${lock}; it measures redis, redlock, redlock-npm, etcd, zookeeper, postgres`,
  );
}

export interface OverheadRow {
  lock: string;
  floor: FloorName;
  /** The harness's results' quantiles (postgres: its write as `acquire`, since it takes no lock). */
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
  /** How the run's clients reached the server: a run with no network fault connects straight to the port. */
  clientNetwork?: 'direct' | 'proxied';
  ops: number;
}

/**
 * One row's goal: recorded acquire p50 ≤ 1.5 × the floor's p50, the floor paced as the run's client is (when
 * measured; else back to back). A run without network faults connects its clients straight to the servers, so the
 * like-for-like floor is the paced direct op. A miss says where the difference goes: pacing (paced − back to
 * back), the proxy (through the proxy − direct, when the run's clients used it) and the rest (the strategy's code,
 * its client library, the client's own stamping), in ms.
 */
export function overheadGoal(row: OverheadRow): Goal {
  const what = row.lock === 'postgres' ? 'write' : 'acquire';
  const hot = row.floorDirect.acquire.p50;
  const floor = row.floorPaced?.acquire.p50 ?? hot;
  const recorded = row.recorded.acquire.p50;
  const ratio = recorded / floor;
  const met = ratio <= OVERHEAD_GOAL_RATIO;
  const proxy = row.clientNetwork === 'direct' ? 0 : row.floorProxied.acquire.p50 - hot;
  const rest = recorded - floor - proxy;
  const split = [
    ...(row.floorPaced ? [`pacing +${(floor - hot).toFixed(3)} ms`] : []),
    ...(row.clientNetwork === 'direct' ? [] : [`proxy +${proxy.toFixed(3)} ms`]),
    `strategy + client library +${rest.toFixed(3)} ms`,
  ];
  return {
    what: `${row.lock} ${what} p50 recorded vs bare ${row.floor}${row.floorPaced ? ' (paced)' : ''}, 1 client`,
    goal: `≤ ${OVERHEAD_GOAL_RATIO}× floor`,
    measured: `${recorded.toFixed(3)} / ${floor.toFixed(3)} ms = ${ratio.toFixed(2)}× (${(recorded / hot).toFixed(2)}× back to back)`,
    met,
    ...(met ? {} : { why: split.join(', ') }),
  };
}
