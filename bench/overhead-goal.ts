import type { Quantiles } from '../checkers/run-results.ts';
import type { Goal } from './outcome.ts';

/** The bare operations the overhead benchmark times (see bench/overhead.ts). */
export type FloorName = 'redis' | 'redis×5' | 'etcd' | 'zookeeper' | 'postgres';

/** Recorded p50 may be at most this many times its floor's p50: issue 14's goal. */
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
  /** The harness's results.json quantiles (postgres: its write as `acquire`, since it takes no lock). */
  recorded: { acquire: Quantiles; release: Quantiles };
  floorDirect: { acquire: Quantiles; release: Quantiles };
  floorProxied: { acquire: Quantiles; release: Quantiles };
  ops: number;
}

/**
 * One row's goal: recorded acquire p50 ≤ 1.5 × the floor's direct p50. A miss says where the difference goes:
 * the proxy (floor through the proxy − floor direct) and the rest (recorded − floor through the proxy: the
 * strategy's code, its client library, the client's own stamping), in ms.
 */
export function overheadGoal(row: OverheadRow): Goal {
  const what = row.lock === 'postgres' ? 'write' : 'acquire';
  const floor = row.floorDirect.acquire.p50;
  const ratio = row.recorded.acquire.p50 / floor;
  const met = ratio <= OVERHEAD_GOAL_RATIO;
  const proxy = row.floorProxied.acquire.p50 - floor;
  const rest = row.recorded.acquire.p50 - row.floorProxied.acquire.p50;
  return {
    what: `${row.lock} ${what} p50 recorded vs bare ${row.floor}, 1 client`,
    goal: `≤ ${OVERHEAD_GOAL_RATIO}× floor`,
    measured: `${row.recorded.acquire.p50.toFixed(3)} / ${floor.toFixed(3)} ms = ${ratio.toFixed(2)}×`,
    met,
    ...(met ? {} : { why: `proxy +${proxy.toFixed(3)} ms, strategy + client library +${rest.toFixed(3)} ms` }),
  };
}
