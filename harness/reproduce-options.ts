import { RUN_ROWS } from './options.ts';
import type { OptionSpec } from './option-table.ts';

/**
 * The options of the reproduction commands — `repro`, `replay`, `shrink` — which their bodies (repro/) parse their
 * words with and their CLI modules (cli/commands/) list in --help; here, below both, so neither reaches up, and a
 * scenario file (scenario/) reads which run options it may set without loading repro/.
 */

/**
 * The run options a scenario may set: how the lock and the faults behave. Not the run's shape — clients, accounts,
 * faults and duration are the script's — nor where it runs (--backend, --results, --seed are the command line's).
 */
export const SCENARIO_OPTIONS = [
  'ttl',
  'think',
  'pause',
  'fencing',
  'watchdog',
  'restart-delay',
  'redis-persistence',
  'retry',
  'clock-offset',
  'etcd-nodes',
  'zk-nodes',
] as const;

export const REPRO_OPTIONS = [
  {
    name: 'out',
    kind: 'string',
    defaultText: 'the run folder',
    help: 'where the bundle folder and its .tgz go',
  },
  { name: 'help', kind: 'bool', default: false, help: 'print the usage' },
] as const satisfies readonly OptionSpec[];

/** Runs a replay takes by default: enough for an interval that says something (10/10 → 72–100 %). */
export const REPLAY_RUNS = 10;

const PASSED_ON = ['lock', 'fencing', 'backend', 'results', 'seed', ...SCENARIO_OPTIONS] as const;
export const REPLAY_OPTIONS = [
  { name: 'runs', kind: 'int', default: REPLAY_RUNS, min: 1, max: 200, help: 'how many times to run the scenario' },
  ...RUN_ROWS.filter((o) => (PASSED_ON as readonly string[]).includes(o.name)),
  {
    name: 'trust-bundle-code',
    kind: 'bool',
    default: false,
    help: 'run the lock code a bundle carries (lock/): without it replay names the files and their hashes, and stops',
  },
  { name: 'help', kind: 'bool', default: false, help: 'print the usage' },
] as const satisfies readonly OptionSpec[];

export const SHRINK_OPTIONS = [
  { name: 'tries', kind: 'int', default: 5, min: 1, max: 50, help: 'runs per candidate configuration (n)' },
  {
    name: 'keep',
    kind: 'int',
    default: 4,
    min: 1,
    max: 50,
    help: 'a candidate is kept when at least this many of its runs fail the same way (k)',
  },
  {
    name: 'budget',
    kind: 'int',
    default: 600,
    min: 10,
    max: 86_400,
    help: 'seconds the shrink may take: no run starts after it',
  },
  {
    name: 'seed',
    kind: 'int',
    defaultText: "the run's own",
    min: 0,
    max: 2 ** 31 - 1,
    help: "seed of the candidates' runs (the same seed repeats the same search)",
  },
  { name: 'results', kind: 'string', default: 'results', help: 'results folder for the candidates’ runs' },
  { name: 'help', kind: 'bool', default: false, help: 'print the usage' },
] as const satisfies readonly OptionSpec[];
