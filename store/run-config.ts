import type { FaultName } from '../history/fault-names.ts';

/**
 * A run's configuration: every option resolved once (harness/options.ts does it, with the seed chosen) and frozen.
 * test.json records it under `config`; readers of a run directory read it as this type (older runs may lack fields).
 */
export interface RunConfig {
  /** The subcommand (`run` for a test run); harness/options.ts narrows it to the ones it knows. */
  command: string;
  /** Arguments after a subcommand that takes its own (check, compare). */
  rest: string[];
  argv: string[];
  lock: string;
  /** Resolved fault list; `null` = the strategy's defaults (resolved by the nemesis). */
  nemesis: FaultName[] | null;
  nemesisIntervalMs: number;
  timeLimitS: number;
  concurrency: number;
  ttlMs: number;
  thinkMs: number;
  accounts: number;
  /** Committed writes a VALID needs (and, with concurrency ≥ 2, by two distinct clients); else unknown. */
  minWrites: number;
  /** `--max-stall`: the longest stall the liveness checker accepts; null = liveness measured, not judged. */
  maxStallMs: number | null;
  fencing: boolean;
  watchdog: boolean;
  pauseMs: number;
  restartDelayMs: number;
  redisPersistence: 'none' | 'aof-always';
  clockOffsetS: number;
  backend: 'local' | 'docker';
  /** --lock=all: how many conclusive runs each measured cell gets. */
  runs: number;
  /** --lock=all: which tables to run (the fault table, the failure-mode/remedy table, or both). */
  matrix: 'all' | 'faults' | 'remedies';
  seed: number;
  resultsDir: string;
  json: boolean;
  /** cleanup: also remove the node data of dead runs. */
  data: boolean;
  /** serve: the port asked for, or null for 8080-else-free. */
  port: number | null;
  /** nightly: this machine's slice of the measured cells, 1-based; null = every cell. */
  shard: { index: number; count: number } | null;
  /** nightly: the previous night's results folder. */
  baseline: string | null;
  /** nightly: the user's expectations file, as given (null = the default name, if that file exists). */
  expectations: string | null;
  /** nightly: the oracle's matrix with the expectations applied (`all`), or only the expectations file's cells. */
  cells: 'all' | 'expectations';
  help: boolean;
}
