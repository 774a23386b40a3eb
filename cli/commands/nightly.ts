import path from 'node:path';
import { HELP_OPTION, type ParseContext } from '../../harness/command-spec.ts';
import { bad, parseArgv, pickRows, type OptionSpec } from '../../harness/option-table.ts';
import { RUN_ROWS } from '../../harness/options.ts';
import { MAX_SHARDS, NIGHTLY_PARALLEL, type NightlyConfig } from '../../nightly/nightly-config.ts';
import type { CommandModule } from '../command-module.ts';
import { dockerEngineFirst } from '../docker-engine-first.ts';

/**
 * `fencepost nightly`: the matrix with the user's expectations, compared with last night (nightly/nightly.ts runs
 * it; what it is run with, nightly/nightly-config.ts).
 */

/** `--shard=2/3` → { index: 2, count: 3 }. */
function parseShard(raw: string): { index: number; count: number } {
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(raw);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > MAX_SHARDS || index < 1 || index > count)
    throw bad(
      `--shard must be <i>/<n> with 1 ≤ i ≤ n ≤ ${MAX_SHARDS}, got "${raw}".`,
      'e.g. --shard=1/3, --shard=2/3 and --shard=3/3 on three machines',
    );
  return { index, count };
}

/** The nightly job picks the locks, faults and fencing of every cell itself. */
const NIGHTLY_PICKS = ['lock', 'nemesis', 'fencing', 'target', 'rows'] as const;

type NightlyPick = (typeof NIGHTLY_PICKS)[number];
type RunOption = (typeof RUN_ROWS)[number]['name'];
const notPicked = (name: RunOption): name is Exclude<RunOption, NightlyPick> =>
  !(NIGHTLY_PICKS as readonly string[]).includes(name);

/** A run option nightly picks itself, or another command's (the command line's refusal). */
function elsewhereFrom(commandLine: ParseContext['elsewhere']) {
  return (name: string) =>
    (NIGHTLY_PICKS as readonly string[]).includes(name)
      ? bad(
          `--${name} with nightly: the nightly job runs the whole matrix (every lock × the oracle's faults, fenced where a lock has a token).`,
          'drop it; to change what a cell is expected to show or add your own lock, use an expectations file (docs/nightly.md)',
        )
      : commandLine(name);
}

/** Nightly's own rows: how the night is split, compared and emitted. */
const NIGHTLY_ROWS = [
  {
    name: 'shard',
    value: 'i>/<n',
    kind: 'string',
    defaultText: 'all cells',
    help: 'nightly: run only shard <i>/<n> of the measured cells (split by time: each cell, heaviest first, to the lightest shard)',
    parse: parseShard,
  },
  {
    name: 'baseline',
    value: 'dir',
    kind: 'string',
    defaultText: 'none',
    help: 'nightly: a previous nightly results folder to compare tonight against',
  },
  {
    name: 'expectations',
    value: 'file',
    kind: 'string',
    defaultText: './fencepost.expectations.json if it exists',
    help: 'nightly: your expectations file (overrides oracle cells, adds your plugin locks)',
  },
  {
    name: 'known-bugs',
    kind: 'string',
    defaultText: './fencepost.known-bugs if it exists',
    help: 'nightly: a folder of your known bugs (repro bundles or scenario files); each is replayed and must still reproduce',
  },
  {
    name: 'parallel',
    kind: 'int',
    default: NIGHTLY_PARALLEL,
    defaultText: '2 (1 on a one-core machine)',
    min: 1,
    max: 8,
    help: "nightly: measured cells run at once on this machine, each with its own cluster and ports (2 on 2 cores about halves the night; latency figures then include the neighbour's load; 1: one cell at a time)",
  },
  {
    name: 'cells',
    kind: 'enum',
    default: 'all',
    choices: ['all', 'expectations'],
    help: "nightly: the oracle's matrix with your expectations applied, or only your expectations file's cells (your locks)",
  },
  {
    name: 'emit',
    kind: 'enum',
    choices: ['kubernetes'],
    defaultText: 'none: run the night here',
    help: 'nightly: write the night as a Kubernetes Indexed Job (one pod per shard) plus its merge step, to stdout, instead of running it',
  },
  {
    name: 'image',
    kind: 'string',
    defaultText: 'none (required with --emit)',
    help: 'nightly --emit: the published image the pods run (fencepost and its servers installed, `fencepost` on PATH)',
  },
  {
    name: 'shards',
    kind: 'int',
    default: 4,
    min: 1,
    // What every pod's --shard=<i>/<n> accepts: more would be emitted, then refused by each pod (audit R10).
    max: MAX_SHARDS,
    help: 'nightly --emit: how many shards (pods) the night is split into',
  },
  {
    name: 'partial',
    kind: 'bool',
    default: false,
    help: "nightly merge: merge the shards that left a result and name the missing ones (such a night exits 2 at best), instead of refusing; what the emitted night's merge does after its bound",
  },
] as const satisfies readonly OptionSpec[];

/** Every run option but NIGHTLY_PICKS (each cell runs with them: nightly/nightly.ts, `nightlySettings`), then its own. */
const TABLE = [
  ...pickRows(RUN_ROWS, RUN_ROWS.map((o) => o.name).filter(notPicked)),
  ...NIGHTLY_ROWS,
  HELP_OPTION,
] as const;

function parse(args: readonly string[], { elsewhere, randomSeed }: ParseContext): NightlyConfig {
  // `nightly merge <dir>…`: the subcommand's words and folders; options still parse.
  const {
    values: v,
    words,
    spelled,
  } = parseArgv(args, TABLE, {
    words: 'collect',
    elsewhere: elsewhereFrom(elsewhere),
  });
  return {
    command: 'nightly',
    help: v.help,
    argv: ['nightly', ...args],
    spelled,
    runOptions: Object.fromEntries(
      RUN_ROWS.map((o) => o.name)
        .filter(notPicked)
        .map((name) => [name, v[name]]),
    ),
    rest: words,
    seed: v.seed ?? randomSeed(),
    resultsDir: path.resolve(v.results),
    backend: v.backend,
    shard: v.shard ?? null,
    baseline: v.baseline !== undefined ? path.resolve(v.baseline) : null,
    expectations: v.expectations !== undefined ? path.resolve(v.expectations) : null,
    cells: v.cells,
    parallel: v.parallel,
    knownBugs: v['known-bugs'] !== undefined ? path.resolve(v['known-bugs']) : null,
    emit: v.emit ?? null,
    image: v.image ?? null,
    shards: v.shards,
    partial: v.partial,
  };
}

export const nightly: CommandModule<NightlyConfig> = {
  summary: 'the matrix with your expectations, compared with last night → junit.xml, summary.md',
  help: {
    about:
      "Runs the oracle's matrix with your expectations applied (or only your cells), compares against a baseline night, and writes junit.xml, summary.md and comparison.html; `nightly merge` joins the shards of one night.",
    usage: [
      'nightly [--baseline=<dir>] [--shard=<i>/<n>] [--expectations=<file>] [--cells=all|expectations]',
      'nightly merge <dir>… --results=<dir> [--baseline=<dir>] [--partial]',
    ],
    examples: [
      ['nightly --cells=expectations --time-limit=10', "only your expectations file's cells"],
      ['nightly --shard=2/3 --seed=7 --results=shard-2', 'the second of three machines'],
      ['nightly merge shard-1 shard-2 shard-3 --results=tonight', 'one night from its shards'],
    ],
    docs: 'docs/nightly.md',
    verbs: {
      merge: {
        about:
          'Joins the results folders of the shards of one night (same seed and settings, each shard once) into one nightly.json, junit.xml and summary.md in --results, compared with --baseline when given; no server starts.',
        usage: ['nightly merge <dir>… --results=<dir> [--baseline=<dir>] [--partial]'],
        examples: [
          ['nightly merge shard-1 shard-2 shard-3 --results=tonight', 'one night from its three shards'],
          ['nightly merge shard-* --results=tonight --baseline=last-night', 'and compared with last night'],
        ],
        docs: 'docs/nightly.md',
        exitCodes:
          '0 every measured cell matched its expectation, 1 a cell contradicts its expectation, 2 none does but a cell stayed inconclusive, 254 a shard missing (without --partial), twice or of another night',
        options: ['results', 'baseline', 'partial', 'help'],
      },
    },
    exitCodes:
      '0 every measured cell matched its expectation, 1 a cell contradicts its expectation, 2 none does but a cell stayed inconclusive, 254 bad arguments or expectations file',
  },
  options: TABLE,
  parse,
  async run(config, shutdown) {
    // `nightly merge` joins folders and `--emit` writes a Job: neither starts a server.
    if (config.rest[0] !== 'merge' && config.emit === null) await dockerEngineFirst(config.backend);
    const { nightlyCommand } = await import('../../nightly/nightly.ts');
    return nightlyCommand(config, shutdown);
  },
};
