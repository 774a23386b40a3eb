import { checkResultsFolder } from '../store/results-store.ts';
import crypto from 'node:crypto';
import { CLI } from '../common/cli-name.ts';
import fs from 'node:fs';
import path from 'node:path';
import { FAULT_NAMES, type FaultName } from '../history/fault-names.ts';
import { faultHelpLines } from '../history/fault-catalogue.ts';
import { BUILTIN_LOCKS, isPluginPath } from '../workloads/lock-names.ts';
import { DEFAULT_MIN_WRITES } from '../checkers/check-run.ts';
import { HarnessError } from '../common/errors.ts';
import { MAX_RERUNS } from '../matrix/oracle.ts';
import type { RunConfig } from '../store/run-config.ts';

/**
 * The one option table. Every flag the CLI accepts is a row here: its type, default, bounds and help line;
 * `--help` is printed from it and `resolveConfig` turns argv into a frozen Config in one pass.
 */
type OptionKind = 'int' | 'string' | 'bool' | 'enum';

interface OptionSpec {
  name: string;
  kind: OptionKind;
  /** Default shown in --help; `undefined` = derived (help says how). */
  default?: string | number | boolean;
  defaultText?: string;
  choices?: readonly string[];
  min?: number;
  max?: number;
  help: string;
}

export const OPTIONS: readonly OptionSpec[] = [
  {
    name: 'lock',
    kind: 'string',
    default: 'redlock',
    help: `lock strategy: ${BUILTIN_LOCKS.join('|')}|all|./plugin.ts`,
  },
  {
    name: 'nemesis',
    kind: 'string',
    default: 'default',
    help: `faults, comma-separated: ${FAULT_NAMES.join(',')}; or none; default = the strategy's own set`,
  },
  {
    name: 'nemesis-interval',
    kind: 'int',
    default: 3000,
    min: 100,
    // A day; and below 2^31 ms, past which Node's timers fire after 1 ms instead (faults back to back).
    max: 86_400_000,
    help: 'ms between the end of one fault and the start of the next',
  },
  { name: 'time-limit', kind: 'int', default: 60, min: 1, max: 86_400, help: 'seconds the clients run' },
  { name: 'concurrency', kind: 'int', default: 5, min: 1, max: 64, help: 'client processes' },
  { name: 'ttl', kind: 'int', default: 2000, min: 100, max: 600_000, help: 'lock TTL / lease / session timeout in ms' },
  {
    name: 'think',
    kind: 'int',
    default: 100,
    min: 0,
    max: 600_000,
    help: 'ms a client spends between its read and its write',
  },
  {
    name: 'accounts',
    kind: 'int',
    default: 1,
    min: 1,
    max: 1000,
    help: 'accounts (lock keys) the clients spread over',
  },
  {
    name: 'min-writes',
    kind: 'int',
    default: DEFAULT_MIN_WRITES,
    min: 0,
    max: 1_000_000,
    help: 'committed writes (by ≥ 2 clients when --concurrency ≥ 2) a run needs to be VALID; fewer → unknown (exit 2)',
  },
  {
    name: 'max-stall',
    kind: 'int',
    defaultText: 'none: liveness measured, not judged',
    min: 1,
    max: 86_400_000,
    help: 'ms the lock may stay free yet untaken while clients wait; a longer stall fails the liveness checker (INVALID, named apart from lost updates)',
  },
  {
    name: 'fencing',
    kind: 'bool',
    default: false,
    help: "writes carry the lock's fencing token; the resource refuses stale tokens",
  },
  {
    name: 'watchdog',
    kind: 'bool',
    default: false,
    help: 'locks whose lease the client renews (redis, redlock, redlock-npm): renew every TTL/3, skip the write when a renewal fails (Redisson-style)',
  },
  {
    name: 'pause',
    kind: 'int',
    defaultText: '1.5 × ttl',
    min: 1,
    max: 600_000,
    help: "ms a pause fault keeps its target stopped, and delay-write holds the holder's traffic",
  },
  {
    name: 'restart-delay',
    kind: 'int',
    default: 0,
    min: 0,
    max: 600_000,
    help: 'restart-empty, kill: ms a killed node stays down (Redlock spec: ≥ max TTL)',
  },
  {
    name: 'redis-persistence',
    kind: 'enum',
    default: 'none',
    choices: ['none', 'aof-always'],
    help: 'Redis persistence (aof-always = appendfsync always)',
  },
  { name: 'clock-offset', kind: 'int', default: 60, min: 1, max: 86_400, help: 'clock faults: seconds to jump' },
  {
    name: 'backend',
    kind: 'enum',
    default: 'local',
    choices: ['local', 'docker'],
    help: 'where servers run: local child processes, or one container per node (needs a Docker engine)',
  },
  {
    name: 'runs',
    kind: 'int',
    default: 1,
    min: 1,
    max: 20,
    help: `--lock=all: conclusive runs per measured cell (each inconclusive run is replaced, at most ${MAX_RERUNS} more); 1 keeps the matrix to minutes on 2 cores`,
  },
  {
    name: 'matrix',
    kind: 'enum',
    default: 'all',
    choices: ['all', 'faults', 'remedies'],
    help: '--lock=all: which tables to run: the faults (lock × fault), the failure modes and remedies, or both',
  },
  {
    name: 'seed',
    kind: 'int',
    defaultText: 'random',
    min: 0,
    max: 2 ** 31 - 1,
    help: 'random seed (printed; pass it back to replay the schedule)',
  },
  { name: 'results', kind: 'string', default: 'results', help: 'results folder' },
  {
    name: 'shard',
    kind: 'string',
    defaultText: 'all cells',
    help: 'nightly: run only shard <i>/<n> of the measured cells (cell k goes to shard (k mod n)+1)',
  },
  {
    name: 'baseline',
    kind: 'string',
    defaultText: 'none',
    help: 'nightly: a previous nightly results folder to compare tonight against',
  },
  {
    name: 'expectations',
    kind: 'string',
    defaultText: './fencepost.expectations.json if it exists',
    help: 'nightly: your expectations file (overrides oracle cells, adds your plugin locks)',
  },
  {
    name: 'cells',
    kind: 'enum',
    default: 'all',
    choices: ['all', 'expectations'],
    help: "nightly: the oracle's matrix with your expectations applied, or only your expectations file's cells (your locks)",
  },
  { name: 'json', kind: 'bool', default: false, help: 'doctor: print JSON instead of a table' },
  {
    name: 'data',
    kind: 'bool',
    default: false,
    help: 'cleanup: also remove the node data (nodes/) of runs whose harness is gone',
  },
  {
    name: 'port',
    kind: 'int',
    defaultText: '8080, or a free port if that is taken',
    min: 1,
    max: 65_535,
    help: 'serve: port on 127.0.0.1 (given explicitly, it must be free)',
  },
  { name: 'help', kind: 'bool', default: false, help: 'print this help' },
];

export const SUBCOMMANDS = {
  init: 'write a starter plugin (locks/my-lock.ts), fencepost.expectations.json and a nightly workflow, here',
  doctor: 'check binaries, boot the whole cluster, call every node, print versions and boot times, tear down',
  check: 'check <run-dir> | check --model=<register|cas-register|mutex|account> <history.jsonl|history.edn>',
  compare: 'compare <run-dir> <run-dir> [...]  → compare.html',
  cleanup: 'stop leftovers (servers, clients) of runs that were killed with kill -9',
  serve: 'serve the results folder on 127.0.0.1 for browsing',
  nightly:
    'nightly [--baseline=<dir>] [--shard=<i>/<n>] | nightly merge <dir>...  → junit.xml, summary.md, comparison.html',
} as const;
export type Subcommand = keyof typeof SUBCOMMANDS | 'run';

/** The frozen config, as every command receives it (its fields: store/run-config.ts, what test.json records). */
export interface Config extends RunConfig {
  command: Subcommand;
}

function bad(message: string, hint?: string): HarnessError {
  return new HarnessError('bad-arguments', message, { hint: hint ?? `see \`${CLI} --help\`` });
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

function didYouMean(word: string, choices: readonly string[]): string {
  const best = choices.map((c) => [c, editDistance(word, c)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= 2 ? ` Did you mean ${best[0]}?` : '';
}

function parseValue(spec: OptionSpec, raw: string): string | number | boolean {
  switch (spec.kind) {
    case 'bool':
      if (raw === 'true' || raw === '') return true;
      if (raw === 'false') return false;
      throw bad(`--${spec.name} takes no value or true/false, got "${raw}".`);
    case 'int': {
      if (!/^-?\d+$/.test(raw))
        throw bad(
          `--${spec.name} must be a whole number${spec.min !== undefined ? ` ≥ ${spec.min}` : ''}, got "${raw}".`,
        );
      const n = Number(raw);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        throw bad(`--${spec.name} must be between ${spec.min ?? '-∞'} and ${spec.max ?? '∞'}, got ${n}.`);
      }
      return n;
    }
    case 'enum':
      if (!spec.choices!.includes(raw))
        throw bad(
          `--${spec.name} must be one of ${spec.choices!.join(', ')}; got "${raw}".${didYouMean(raw, spec.choices!)}`,
        );
      return raw;
    case 'string':
      if (raw === '') throw bad(`--${spec.name} needs a value.`);
      return raw;
  }
}

function validateLock(lock: string): void {
  if ((BUILTIN_LOCKS as readonly string[]).includes(lock) || lock === 'all') return;
  if (isPluginPath(lock)) {
    if (!fs.existsSync(path.resolve(lock)))
      throw bad(
        `--lock=${lock}: no such file (${path.resolve(lock)}).`,
        'a plugin lock is a .ts/.js module path; see README, "Your own lock strategy"',
      );
    return;
  }
  throw bad(
    `unknown lock "${lock}". Valid: ${[...BUILTIN_LOCKS, 'all'].join(', ')}, or a path to a plugin module (./my-lock.ts).${didYouMean(lock, [...BUILTIN_LOCKS, 'all'])}`,
  );
}

function parseNemesis(raw: string): FaultName[] | null {
  if (raw === 'default') return null;
  if (raw === 'none') return [];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!(FAULT_NAMES as string[]).includes(n))
      throw bad(`unknown fault "${n}". Valid: ${FAULT_NAMES.join(', ')}, none, default.${didYouMean(n, FAULT_NAMES)}`);
  }
  return [...new Set(names)] as FaultName[];
}

/** `--shard=2/3` → { index: 2, count: 3 }. */
function parseShard(raw: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count)
    throw bad(
      `--shard must be <i>/<n> with 1 ≤ i ≤ n, got "${raw}".`,
      'e.g. --shard=1/3, --shard=2/3 and --shard=3/3 on three machines',
    );
  return { index, count };
}

function deepFreeze<T>(o: T): Readonly<T> {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

/**
 * argv (what follows `npm run jepsen --`) → a complete, frozen Config including the seed, or a HarnessError of
 * kind `bad-arguments` (exit 254) before anything has started.
 */
export function resolveConfig(
  argv: string[],
  randomSeed: () => number = () => crypto.randomInt(0, 2 ** 31 - 1),
): Readonly<Config> {
  const values = new Map<string, string | number | boolean>();
  let command: Subcommand = 'run';
  const rest: string[] = [];
  const specs = new Map(OPTIONS.map((o) => [o.name, o]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (command === 'check' || command === 'compare') {
      rest.push(arg);
      continue;
    }
    // `nightly merge <dir>…`: the subcommand's words and folders; options still parse.
    if (command === 'nightly' && !arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) {
      if (command === 'run' && values.size === 0 && arg in SUBCOMMANDS) {
        command = arg as Subcommand;
        continue;
      }
      throw bad(
        `unexpected argument "${arg}". Subcommands: ${Object.keys(SUBCOMMANDS).join(', ')}; options start with --.${didYouMean(arg, Object.keys(SUBCOMMANDS))}`,
      );
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const spec = specs.get(name);
    if (!spec)
      throw bad(
        `unknown option --${name}.${didYouMean(name, [...specs.keys()]).replace('Did you mean ', 'Did you mean --')} Valid options: ${[...specs.keys()].map((k) => `--${k}`).join(' ')}`,
      );
    let raw: string;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else if (spec.kind === 'bool') raw = '';
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
    else throw bad(`--${name} needs a value.`);
    values.set(name, parseValue(spec, raw));
  }
  const get = <T>(name: string): T => (values.has(name) ? values.get(name) : specs.get(name)!.default) as T;

  const lock = get<string>('lock');
  if (command === 'run') validateLock(lock);
  const fencing = get<boolean>('fencing');
  // What a lock can do (a token for --fencing, a lease for --watchdog) is the strategy's to say: checked by
  // checkStrategyOptions once the strategy is resolved, still before anything starts (strategy-options.ts).
  if (command === 'run' && fencing && lock === 'all')
    throw bad(
      '--fencing with --lock=all: the matrix already runs the fenced variant of every lock that has a token.',
      'drop --fencing',
    );
  const watchdog = get<boolean>('watchdog');
  if (command === 'run' && lock === 'all' && values.has('nemesis')) {
    throw bad(
      "--nemesis with --lock=all: the matrix's columns are its faults (no fault, holder paused, Redis restart empty, clock jump, fenced) and its scenarios (failure modes and remedies).",
      'drop --nemesis, or run one lock: --lock=<lock> --nemesis=<fault,…>',
    );
  }
  for (const name of ['shard', 'baseline', 'expectations', 'cells']) {
    if (values.has(name) && command !== 'nightly')
      throw bad(`--${name} applies to the nightly subcommand.`, `${CLI} nightly --${name}=…`);
  }
  if (command === 'run' && values.has('matrix') && lock !== 'all')
    throw bad(
      `--matrix applies to --lock=all (which tables to run); --lock=${lock} is one run.`,
      'drop --matrix, or use --lock=all',
    );
  for (const name of ['lock', 'nemesis', 'fencing']) {
    if (values.has(name) && command === 'nightly')
      throw bad(
        `--${name} with nightly: the nightly job runs the whole matrix (every lock × the oracle's faults, fenced where a lock has a token).`,
        'drop it; to change what a cell is expected to show or add your own lock, use an expectations file (README, "Nightly chaos in CI")',
      );
  }
  if (command === 'run' && values.has('runs') && lock !== 'all')
    throw bad(
      `--runs applies to --lock=all (runs per matrix cell); --lock=${lock} is one run.`,
      'drop --runs, or use --lock=all',
    );
  const ttlMs = get<number>('ttl');
  // Every command that writes into or acts on the results folder; check and compare take run folders instead.
  if (!get<boolean>('help') && command !== 'check' && command !== 'compare')
    checkResultsFolder(path.resolve(get<string>('results')));
  return deepFreeze({
    command,
    rest,
    argv: [...argv],
    lock,
    nemesis: parseNemesis(get<string>('nemesis')),
    nemesisIntervalMs: get<number>('nemesis-interval'),
    timeLimitS: get<number>('time-limit'),
    concurrency: get<number>('concurrency'),
    ttlMs,
    thinkMs: get<number>('think'),
    accounts: get<number>('accounts'),
    minWrites: get<number>('min-writes'),
    maxStallMs: values.has('max-stall') ? (values.get('max-stall') as number) : null,
    fencing,
    watchdog,
    pauseMs: values.has('pause') ? (values.get('pause') as number) : Math.round(1.5 * ttlMs),
    restartDelayMs: get<number>('restart-delay'),
    redisPersistence: get<'none' | 'aof-always'>('redis-persistence'),
    clockOffsetS: get<number>('clock-offset'),
    backend: get<'local' | 'docker'>('backend'),
    runs: get<number>('runs'),
    matrix: get<'all' | 'faults' | 'remedies'>('matrix'),
    seed: values.has('seed') ? (values.get('seed') as number) : randomSeed(),
    resultsDir: path.resolve(get<string>('results')),
    json: get<boolean>('json'),
    data: get<boolean>('data'),
    port: values.has('port') ? (values.get('port') as number) : null,
    shard: values.has('shard') ? parseShard(values.get('shard') as string) : null,
    baseline: values.has('baseline') ? path.resolve(values.get('baseline') as string) : null,
    expectations: values.has('expectations') ? path.resolve(values.get('expectations') as string) : null,
    cells: get<'all' | 'expectations'>('cells'),
    help: get<boolean>('help'),
  });
}

export function helpText(): string {
  const rows = OPTIONS.map((o) => {
    const flag =
      o.kind === 'bool'
        ? `--${o.name}`
        : `--${o.name}=<${o.kind === 'enum' ? o.choices!.join('|') : o.kind === 'int' ? 'n' : 'value'}>`;
    const def = o.defaultText ?? (o.default === undefined ? '' : String(o.default));
    return `  ${flag.padEnd(36)} ${o.help}${def !== '' ? ` (default: ${def})` : ''}`;
  });
  const subs = Object.entries(SUBCOMMANDS).map(([k, v]) => `  ${k.padEnd(36)} ${v}`);
  return [
    'fencepost — a Jepsen-style chaos harness for distributed locks',
    '',
    `usage: ${CLI} [--lock=<strategy>] [options]`,
    `       ${CLI} <subcommand> [args]`,
    '',
    'options:',
    ...rows,
    '',
    'subcommands:',
    ...subs,
    '',
    'faults (--nemesis):',
    ...faultHelpLines('  ', 36),
    '',
    'exit codes: 0 valid, 1 invalid (anomalies found), 2 unknown, 130 interrupted, 254 bad arguments, 255 harness crashed',
  ].join('\n');
}
