import { CLI } from '../common/cli-name.ts';
import { EXIT_CODE_LINE } from '../common/exit-codes.ts';
import { FAULT_CATALOGUE } from '../history/fault-catalogue.ts';
import { CHECK_OPTIONS } from './check-options.ts';
import { REPLAY_OPTIONS, REPRO_OPTIONS, SHRINK_OPTIONS } from './commands/reproduce.ts';
import { helpWidth, twoColumns, wrapText } from './help-layout.ts';
import { optionRows, type OptionSpec } from './option-table.ts';
import { commandOptions, OPTIONS, SUBCOMMANDS, type Subcommand } from './command-line.ts';

/**
 * `--help`, for the CLI as a whole and for each subcommand: what it does, how it is called, its own options (from
 * its option table, so a new option is listed where it is accepted), examples, and where the docs say more. Every
 * line is wrapped to the terminal (help-layout.ts). Printed on stdout, exit 0, for every subcommand.
 */

export interface CommandHelp {
  /** One sentence: what the command does. */
  readonly about: string;
  /** Its call forms, after the CLI's name. */
  readonly usage: readonly string[];
  /** [arguments after the CLI's name, what it does]. */
  readonly examples: readonly (readonly [string, string])[];
  /** The page that says more, a repository path. */
  readonly docs: string;
}

export const COMMAND_HELP: Readonly<Record<Exclude<Subcommand, 'run'>, CommandHelp>> = {
  init: {
    about:
      'Writes a starter lock plugin (locks/my-lock.ts), an expectations file and a nightly workflow into the current folder, adds results/ to .gitignore, and prints the first command to run.',
    usage: ['init'],
    examples: [['init', 'in your project, after `npm install -D fencepost`']],
    docs: 'docs/your-lock.md',
  },
  doctor: {
    about:
      'Checks the server binaries (installing what is missing when root), boots the whole cluster once, calls every node, prints versions and boot times, and tears it down.',
    usage: ['doctor [--backend=local|docker] [--json]'],
    examples: [
      ['doctor', 'is this machine ready? (boots 12 nodes, ~3 s)'],
      ['doctor --backend=docker --json', 'the same in containers, as JSON'],
    ],
    docs: 'docs/getting-started.md',
  },
  check: {
    about:
      'Re-checks a stored run from its history alone (no server), or checks a history file against a model: our history.jsonl or a Jepsen/Knossos EDN history.',
    usage: [
      'check <run-dir>',
      'check --model=<model> <history file>',
      'check --model=<model> <file|dir>…   (many histories in one process: one line each, then a total)',
    ],
    examples: [
      ['check results/latest', 're-check the newest run; rewrites its results.json'],
      ['check --model=cas-register --initial=0 history.edn', 'a Knossos history against a CAS register'],
      ['check --model=mutex test/corpus/knossos', 'every history under a folder'],
    ],
    docs: 'docs/results.md',
  },
  compare: {
    about:
      'Writes compare.html beside the first run: the runs side by side, what changed, and a warning when their counts are not comparable (another time limit or duration, backend, fault list or number of clients).',
    usage: ['compare <run-dir> <run-dir> […]'],
    examples: [['compare results/redlock/<run> results/redlock/<other run>', 'before and after a change']],
    docs: 'docs/results.md',
  },
  repro: {
    about:
      'Turns a failing run into a reproduction anyone can run: a folder and its .tgz with the failure scripted as a scenario, the failing window of the history, the lock, options, seed and versions, and a README telling the story with the one command that replays it. No secret goes into it.',
    usage: ['repro <run-dir> [--out=<dir>]'],
    examples: [['repro results/redlock/<run>', 'the bundle beside the run: <run>/repro/ and <run>/repro.tgz']],
    docs: 'docs/reproductions.md',
  },
  replay: {
    about:
      "Runs a bundle's (or a scenario file's) scripted story --runs times on fresh servers, each run checked and reported, and prints its reproduction rate with a Wilson 95 % interval; runs that could not follow their script are counted apart.",
    usage: ['replay <bundle folder | bundle.tgz | scenario.json> [--runs=10] [--lock=…] [--fencing]'],
    examples: [
      ['replay results/redlock/<run>/repro.tgz', 'does it still fail? (exit 1: yes; 0: no longer)'],
      ['replay scenarios/paused-holder.json --lock=etcd --fencing', 'a shipped story against another lock'],
    ],
    docs: 'docs/reproductions.md',
  },
  shrink: {
    about:
      "Reduces a failing run's configuration (clients, accounts, fault kinds, shots, duration, think time) while at least --keep of --tries runs still fail the same way, then saves the smallest with its rate and bundle.",
    usage: ['shrink <run-dir> [--tries=5] [--keep=4] [--budget=600] [--seed=<n>]'],
    examples: [['shrink results/redlock/<run> --budget=300', 'at most five minutes of candidates']],
    docs: 'docs/reproductions.md',
  },
  target: {
    about:
      'Connects to a target (your own servers, described in a target file), proves its credentials are fenced to the key prefix the runs may use, and lists every command and key a run against it would touch; nothing is written.',
    usage: ['target check <target file>'],
    examples: [['target check ./fencepost.target.json', 'before the first --target run']],
    docs: 'docs/targets.md',
  },
  'lock-check': {
    about:
      "Plays the lock-client protocol's contract against a lock in another language, on the lock's own servers, in a few seconds: each step PASS, FAIL or SKIP, a failure with its exact exchange. Run it before a chaos run.",
    usage: ['lock-check <manifest.json>', 'lock-check exec:<program>'],
    examples: [
      ['lock-check ./locks/my-lock.json', 'a manifest (needs, servers, token, command)'],
      ['lock-check exec:./my-lock.py', 'a program alone: one Redis, no token'],
    ],
    docs: 'docs/protocol.md',
  },
  cleanup: {
    about:
      'Stops what runs killed with kill -9 left behind (servers, clients, containers, scratch folders) — only runs whose harness is gone, only what this user created.',
    usage: ['cleanup [--data]'],
    examples: [
      ['cleanup', 'after a kill -9 of the harness'],
      ['cleanup --data', 'and remove those runs’ node data'],
    ],
    docs: 'docs/shared-machines.md',
  },
  serve: {
    about:
      'Serves the results folder on 127.0.0.1 (reports, the index, histories, logs; never a secret) for a browser.',
    usage: ['serve [--port=<n>] [--results=<dir>]'],
    examples: [['serve', 'then open the printed address']],
    docs: 'docs/results.md',
  },
  nightly: {
    about:
      "Runs the oracle's matrix with your expectations applied (or only your cells), compares against a baseline night, and writes junit.xml, summary.md and comparison.html; `nightly merge` joins the shards of one night.",
    usage: [
      'nightly [--baseline=<dir>] [--shard=<i>/<n>] [--expectations=<file>] [--cells=all|expectations]',
      'nightly merge <dir>… --results=<dir> [--baseline=<dir>]',
    ],
    examples: [
      ['nightly --cells=expectations --time-limit=10', "only your expectations file's cells"],
      ['nightly --shard=2/3 --seed=7 --results=shard-2', 'the second of three machines'],
      ['nightly merge shard-1 shard-2 shard-3 --results=tonight', 'one night from its shards'],
    ],
    docs: 'docs/nightly.md',
  },
};

/** The options a plain run takes, in groups, by name (every run option is in exactly one: a test checks). */
const RUN_GROUPS: readonly (readonly [string, readonly string[]])[] = [
  [
    'a run',
    [
      'lock',
      'nemesis',
      'time-limit',
      'concurrency',
      'ttl',
      'think',
      'accounts',
      'fencing',
      'watchdog',
      'seed',
      'backend',
      'results',
      'verbose',
    ],
  ],
  ['what a verdict needs', ['min-writes', 'max-stall', 'stop-on-lost-update']],
  [
    'fault tuning',
    [
      'nemesis-interval',
      'pause',
      'restart-delay',
      'redis-persistence',
      'retry',
      'clock-offset',
      'etcd-nodes',
      'zk-nodes',
    ],
  ],
  ['reproductions (docs/reproductions.md)', ['scenario', 'shots']],
  ['your own servers (docs/targets.md)', ['target', 'dry-run']],
  ['--lock=all (every lock × fault of the oracle → matrix.html)', ['runs', 'matrix']],
  ['other', ['help']],
];

const RUN_EXAMPLES: readonly (readonly [string, string])[] = [
  ['--lock=redlock', 'Redlock for 60 s under its own faults'],
  ['--lock=etcd --nemesis=pause-holder --fencing --time-limit=30', 'a paused holder against a fenced etcd lock'],
  ['--lock=./locks/my-lock.ts --nemesis=restart-empty --time-limit=15', 'your own lock (init writes one)'],
  ['--lock=redis --seed=137715950', "replay a run's fault schedule"],
  ['--lock=all --time-limit=10', 'the whole matrix'],
];

function section(title: string, lines: readonly string[]): string[] {
  return lines.length ? ['', `${title}:`, ...lines] : [];
}

function examples(rows: readonly (readonly [string, string])[], width: number): string[] {
  return rows.flatMap(([args, what]) => [...commandLines(`${CLI} ${args}`, width), ...wrapText(`# ${what}`, width, 6)]);
}

/** A command to copy, on its own lines: one too wide is continued with a backslash, so a shell still reads it whole. */
function commandLines(command: string, width: number): string[] {
  const lines = wrapText(command, width - 2, 6, 2);
  return lines.map((l, i) => (i < lines.length - 1 ? `${l} \\` : l));
}

function optionsSection(options: readonly OptionSpec[], width: number): string[] {
  return twoColumns(optionRows(options), width);
}

/** `fencepost --help`: what it is, how to call it, the run's options in groups, the subcommands, the faults. */
export function globalHelp(width = helpWidth()): string {
  const byName = new Map<string, OptionSpec>(OPTIONS.map((o) => [o.name, o]));
  const groups = RUN_GROUPS.flatMap(([title, names]) => {
    const rows = optionsSection(
      names.map((n) => byName.get(n)!),
      width,
    );
    return title ? section(title, rows) : rows;
  });
  return [
    ...wrapText('fencepost — a Jepsen-style chaos harness for distributed locks', width, 0),
    '',
    'usage:',
    ...twoColumns(
      [
        [`${CLI} [--lock=<lock>] [options]`, 'a test run'],
        [`${CLI} <subcommand> [args]`, 'a subcommand; each has its own --help'],
      ],
      width,
      46,
    ),
    ...section('examples', examples(RUN_EXAMPLES, width)),
    ...groups,
    ...section('subcommands', twoColumns(Object.entries(SUBCOMMANDS), width, 14)),
    ...section(
      'faults (--nemesis)',
      twoColumns(
        Object.entries(FAULT_CATALOGUE).map(([name, facts]) => [name, facts.help]),
        width,
        20,
      ),
    ),
    '',
    ...wrapText(EXIT_CODE_LINE, width, 2, 0),
    ...wrapText('docs: README.md, docs/cli.md (every option), docs/faults.md, docs/reading-results.md', width, 2, 0),
  ].join('\n');
}

/** The commands that parse their own arguments, with their option tables. */
type OwnOptions = 'check' | 'compare' | 'repro' | 'replay' | 'shrink';
const OWN_OPTIONS: Readonly<Record<OwnOptions, readonly OptionSpec[]>> = {
  check: CHECK_OPTIONS,
  compare: [],
  repro: REPRO_OPTIONS,
  replay: REPLAY_OPTIONS,
  shrink: SHRINK_OPTIONS,
};

/** The options a subcommand takes, from its own table. */
export function ownOptions(command: Exclude<Subcommand, 'run'>): readonly OptionSpec[] {
  return command in OWN_OPTIONS ? OWN_OPTIONS[command as OwnOptions] : commandOptions(command as never);
}

/** `fencepost <subcommand> --help`. */
export function commandHelp(command: Exclude<Subcommand, 'run'>, width = helpWidth()): string {
  const h = COMMAND_HELP[command];
  const options = ownOptions(command);
  return [
    ...wrapText(`${CLI} ${command} — ${h.about}`, width, 2, 0),
    '',
    'usage:',
    ...h.usage.flatMap((u) => wrapText(`${CLI} ${u}`, width, 6, 2)),
    ...section('options', optionsSection(options, width)),
    ...section('examples', examples(h.examples, width)),
    '',
    ...wrapText(EXIT_CODE_LINE, width, 2, 0),
    ...wrapText(`docs: ${h.docs}`, width, 2, 0),
  ].join('\n');
}

/** The help a parsed command line asks for. */
export function helpFor(command: Subcommand): string {
  return command === 'run' ? globalHelp() : commandHelp(command);
}
