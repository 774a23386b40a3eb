/** The bare store operations the overhead bench times a lock against (bench/overhead.ts, bench/protocol-floors.ts). */
export type FloorName = 'redis' | 'redis×5' | 'etcd' | 'zookeeper' | 'postgres';

/**
 * How the overhead bench (bench/overhead.ts) measures a lock, for a row it measures by default: the bare store
 * operation the lock's cost is compared with, and which of its run's ops it times.
 */
export interface OverheadBench {
  /**
   * A SET on one Redis (`redis`); five in parallel (`redis×5`) for a lock that asks all five masters; an etcd put; a
   * ZooKeeper create (taken apart per member too); the Postgres row's conditional write.
   */
  readonly floor: FloorName;
  /**
   * Its acquire; or its write, for a lock that takes none (its acquire is a no-op and the write is what it costs):
   * then there is no strategy alone to time beside the floor, which is already the run's own statement.
   */
  readonly timed: 'acquire' | 'write';
}

/** What the benchmarks (bench/) measure of a lock, beyond what every lock gets. */
export interface LockBench {
  readonly overhead?: OverheadBench;
}
