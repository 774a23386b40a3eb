import os from 'node:os';
import type { RunOptionValues } from '../harness/run-argv.ts';
import type { SpelledOption } from '../common/walk-argv.ts';

/** What `fencepost nightly` is run with: cli/commands/nightly.ts parses it from the command line. */

/** The most machines a night is split over (`--shard=<i>/<n>`, a shard's nightly.json, the reusable workflow's shards). */
export const MAX_SHARDS = 64;

/**
 * `nightly --parallel`'s default: two measured cells at once where there are two cores. Both tables at
 * --time-limit=10 on 2 cores: 24.6 min one cell at a time, 12.0 min two at a time with every cell matching
 * (docs/performance.md). Not more: a cell's latency figures include its neighbours' load.
 */
export const NIGHTLY_PARALLEL = Math.min(2, Math.max(1, os.availableParallelism()));

export interface NightlyConfig {
  readonly command: 'nightly';
  readonly help: boolean;
  readonly argv: readonly string[];
  /** Its options as spelled, in order (nightly's own among them): what each cell keeps of them (nightly.ts). */
  readonly spelled: readonly SpelledOption[];
  /** The run options it takes (all but the ones it picks per cell), typed: what the night's matrix is built from. */
  readonly runOptions: Partial<RunOptionValues>;
  /** `merge <dir>…`, or nothing. */
  readonly rest: readonly string[];
  readonly seed: number;
  readonly resultsDir: string;
  readonly backend: 'local' | 'docker';
  /** This machine's slice of the measured cells, 1-based; null = every cell. */
  readonly shard: { index: number; count: number } | null;
  /** The previous night's results folder. */
  readonly baseline: string | null;
  /** The user's expectations file, as given (null = the default name, if that file exists). */
  readonly expectations: string | null;
  /** The oracle's matrix with the expectations applied (`all`), or only the expectations file's cells. */
  readonly cells: 'all' | 'expectations';
  /** Measured cells run at once (each its own cluster and clients). */
  readonly parallel: number;
  /** The folder of the user's known bugs (bundles, scenario files), as given; null = the default name, if it exists. */
  readonly knownBugs: string | null;
  /** --emit: write the night as a Kubernetes Indexed Job instead of running it. */
  readonly emit: 'kubernetes' | null;
  /** --image: what the emitted pods run. */
  readonly image: string | null;
  /** --shards: the emitted Job's completions. */
  readonly shards: number;
  /** `nightly merge --partial`: merge the shards there are, naming the missing ones, instead of refusing. */
  readonly partial: boolean;
}
