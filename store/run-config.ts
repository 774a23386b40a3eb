import type { FaultName } from '../faults/fault-names.ts';

/**
 * A run's own options, every one resolved once (harness/options.ts does it, with the seed chosen) and frozen:
 * what the test record (store/run-dir.ts) keeps under `config`. Only the run's: no subcommand, --help, --lock=all's or nightly's options
 * (runs before 2026-12-02 recorded those too — `command`, `rest`, `runs`, `matrix`, `json`, `data`, `port`, `shard`,
 * `baseline`, `expectations`, `cells`, `help` — and readers ignore them). Readers of a run directory read it as this
 * type, partial: older runs may lack fields.
 */
export interface RunConfig {
  argv: string[];
  lock: string;
  /** Resolved fault list; `null` = the strategy's defaults (resolved by the nemesis). */
  nemesis: FaultName[] | null;
  nemesisIntervalMs: number;
  timeLimitS: number;
  /** `--scenario`: the scripted scenario file the run followed (scenario/scenario-file.ts); null for a free run. */
  scenario: string | null;
  /** `--shots`: at most this many fault shots; null = as many as the run has time for. */
  maxShots: number | null;
  concurrency: number;
  ttlMs: number;
  thinkMs: number;
  accounts: number;
  /** Committed writes a VALID needs (and, with concurrency ≥ 2, by two distinct clients); else unknown. */
  minWrites: number;
  /** `--max-stall`: the longest stall the liveness checker accepts; null = liveness measured, not judged. */
  maxStallMs: number | null;
  /** `--stop-on-lost-update`: the run ends at its first lost update instead of at the time limit. */
  stopOnLostUpdate: boolean;
  fencing: boolean;
  watchdog: boolean;
  /** How long a pause fault stops its target: `--pause`, else 1.5 × TTL. */
  pauseMs: number;
  /**
   * The longest a fault that waits for its story holds (pause-holder, delay-write, kill-holder: until another client
   * took the lock and wrote): `--pause` when given, else 4 × TTL. Runs from before stories lack it.
   */
  storyWaitMs: number;
  restartDelayMs: number;
  redisPersistence: 'none' | 'aof-always';
  /** `--redis-server`: the binary fencepost's own Redis nodes run (runs before 2026-12-06 lack it: redis). */
  redisServer: 'redis' | 'valkey';
  /** `--retry`: the lock library's own retry loop (`library`), or the strategy's loop around single attempts. */
  retry: 'library' | 'harness';
  clockOffsetS: number;
  /** `--clock-rate`: how fast clock-rate runs the clocks it strikes (runs before 2026-12-06 lack it). */
  clockRate: number;
  backend: 'local' | 'docker';
  /** --etcd-nodes / --zk-nodes: the ensemble size of a lock on etcd / ZooKeeper (3 or 5); null = the strategy's own. */
  etcdNodes: number | null;
  zkNodes: number | null;
  seed: number;
  resultsDir: string;
  /** `--target`: the target file the run tested (absolute), null = fencepost's own servers. Older runs lack it. */
  target: string | null;
}
