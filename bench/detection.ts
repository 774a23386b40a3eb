import fs from 'node:fs';
import { benchArgs, commaList } from './bench-args.ts';
import type { OptionSpec } from '../harness/option-table.ts';
import os from 'node:os';
import path from 'node:path';
import type { ExposedBy } from '../examples/broken/exposed-by.ts';
import { cellConfig } from '../matrix/cell-config.ts';
import { builtinStrategies } from '../matrix/matrix.ts';
import { isolatedRunner } from '../matrix/cell-decision.ts';
import { readRunHistory } from '../store/run-dir.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { ORACLE, ORACLE_COLUMNS } from '../matrix/oracle.ts';
import { resolveConfig, type Config } from '../harness/run-argv.ts';
import { typedRun } from '../harness/typed-run.ts';
import { Shutdown } from '../common/shutdown.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { lockFinding } from '../locks/lock-finding.ts';
import {
  detectionGoal,
  detectionSpeedGoal,
  withinText,
  summarize,
  timeToFirstAnomalyMs,
  type DetectionCell,
  type DetectionRun,
} from './detection-stats.ts';
import type { BenchOutcome } from './outcome.ts';

/**
 * `npm run bench -- detection [--runs=20] [--time-limit=30] [--cells=<substring>,…] [--source=faults|gallery]
 *  [--expect=lost|safe] [--quick] [--full-runs]`
 *
 * Each run ends at its first lost update (`--stop-on-lost-update`: the time to it is what is measured, and the
 * checkers still decide from the ledger); `--full-runs` runs each to its time limit instead.
 * Detection power: each unsafe cell of the oracle (every measured `lost` cell but the no-lock baseline) and each
 * broken lock of the gallery under its own fault, `--runs` runs: how many found the anomaly (lost updates or a
 * confirmed overlap), the median and p90 time from the first op to the first anomaly (bench/detection-stats.ts
 * defines it), the share of runs that found it within 2, 5 and 10 s of the run's start (so a shorter nightly
 * can be chosen by evidence), and the fault's hit rate. Each safe cell (fenced etcd and zookeeper, postgres, the gallery's
 * fixed twins): its false alarms (INVALID runs). Oracle cells get exactly the options the matrix gives them
 * (matrix/cell-config.ts: restart-empty's interval cap and think floor); gallery cases get their `exposedBy`
 * args, as their files say. Runs go through runTest, one at a time, each with its own teardown.
 *
 * `--quick` (what `all --quick` runs): 2 runs per cell, 8 s each, a subset of 7 cells (check-then-set names both the case and its twin) — a smoke test of the
 * benchmark and the harness, not a measure of detection power (2 runs cannot show 19/20).
 */
const GALLERY = path.resolve('examples/broken');
const QUICK_CELLS = [
  'redis × holder paused',
  'redlock × Redis restart empty',
  'etcd × holder paused',
  'zookeeper × with --fencing',
  'postgres × holder paused',
  'gallery check-then-set',
];

interface Plan {
  cell: string;
  source: 'faults' | 'gallery';
  expect: 'lost' | 'safe';
  fault: string;
  config: (base: Readonly<Config>, seed: number) => Readonly<Config>;
}

const OPTIONS = [
  { name: 'runs', kind: 'int', min: 1, defaultText: '20; 2 with --quick', help: 'runs per cell' },
  {
    name: 'time-limit',
    kind: 'int',
    value: 's',
    min: 5,
    defaultText: '30; 8 with --quick',
    help: "each run's --time-limit",
  },
  {
    name: 'cells',
    kind: 'string',
    value: 'name substring,…',
    defaultText: 'every cell; a subset of 7 with --quick',
    help: 'cells whose name contains one of these',
    parse: commaList('cells'),
  },
  { name: 'source', kind: 'enum', choices: ['faults', 'gallery'], help: 'only the fault table or the gallery' },
  { name: 'expect', kind: 'enum', choices: ['lost', 'safe'], help: 'only cells expected lost, or safe' },
  { name: 'quick', kind: 'bool', default: false, help: 'a smoke test: 2 runs of 8 s on 7 cells' },
  { name: 'full-runs', kind: 'bool', default: false, help: 'run each to its time limit, not to its first lost update' },
] as const satisfies readonly OptionSpec[];

export async function run(args: string[]): Promise<BenchOutcome> {
  const o = benchArgs('detection', args, OPTIONS);
  const quick = o.quick;
  const runs = o.runs ?? (quick ? 2 : 20);
  const timeLimitS = o['time-limit'] ?? (quick ? 8 : 30);
  const only = o.cells ?? (quick ? QUICK_CELLS : null);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-detection-'));
  // Each run ends at its first lost update (the time to it is what is measured), unless --full-runs.
  const fullRuns = o['full-runs'];
  const base = typedRun({ timeLimitS, resultsDir: results, ...(fullRuns ? {} : { stopOnLostUpdate: true }) });
  const all = await plan();
  // --source=faults|gallery and --expect=lost|safe narrow the plan (the issue's goal: --source=faults --expect=lost).
  const chosen = all.filter(
    (p) =>
      (!only || only.some((o) => p.cell.includes(o))) &&
      (o.source === undefined || p.source === o.source) &&
      (o.expect === undefined || p.expect === o.expect),
  );
  if (chosen.length === 0) {
    console.error(`detection: no cell matches ${args.join(' ')}; cells are:\n  ${all.map((p) => p.cell).join('\n  ')}`);
    process.exit(254);
  }
  console.log(
    `detection: ${chosen.length} of ${all.length} cells × ${runs} runs, --time-limit=${timeLimitS}${quick ? ' (quick: a subset, too few runs to show 19/20)' : ''}`,
  );
  const shutdown = new Shutdown();
  const runOne = isolatedRunner(shutdown, () => {});
  const cells: DetectionCell[] = [];
  try {
    for (const p of chosen) {
      const cell: DetectionCell = { cell: p.cell, expect: p.expect, fault: p.fault, source: p.source, runs: [] };
      for (let i = 0; i < runs; i++) {
        const seed = 1000 + i;
        cell.runs.push(await oneRun(() => runOne(p.config(base, seed)), p, seed));
        const r = cell.runs.at(-1)!;
        console.log(
          `  ${p.cell} run ${i + 1}/${runs}: ${r.verdict}, ${r.lostUpdates} lost, first anomaly ${r.firstAnomalyMs === null ? '-' : `${(r.firstAnomalyMs / 1000).toFixed(2)} s`}, hit ${r.hits ?? '-'}/${r.fired ?? '-'}${r.error ? `, ${r.error}` : ''}`,
        );
      }
      cells.push(cell);
      const s = summarize(cell);
      console.log(
        `${p.cell}: ${p.expect === 'lost' ? `found ${s.found}/${s.runs}, median ${s.medianMs?.toFixed(0) ?? '-'} ms, p90 ${s.p90Ms?.toFixed(0) ?? '-'} ms, within ${withinText(s.within)}, hit rate ${s.hitRate === null ? '-' : s.hitRate.toFixed(2)}` : `false alarms ${s.falseAlarms}/${s.runs}`}`,
      );
    }
  } finally {
    await shutdown.runAll();
    fs.rmSync(results, { recursive: true, force: true });
  }
  return {
    benchmark: 'detection',
    goals: [
      ...cells.map(detectionGoal),
      ...cells
        .filter((c) => c.expect === 'lost' && c.source === 'faults')
        .map((c) => detectionSpeedGoal(c, timeLimitS)),
    ],
    data: { runs, timeLimitS, quick, cells: cells.map((c) => ({ ...c, summary: summarize(c) })) },
  };
}

async function oneRun(
  go: () => ReturnType<ReturnType<typeof isolatedRunner>>,
  p: Plan,
  seed: number,
): Promise<DetectionRun> {
  try {
    const out = await go();
    const r = out.results;
    const { history } = readRunHistory(out.runDir);
    const firstAnomalyMs = timeToFirstAnomalyMs(history.ops, r);
    const count = p.fault === 'none' ? undefined : r.faultHits[p.fault];
    const verdict = verdictWord(r.valid);
    // A run dir holds ~40 MB of node data while it lives; its results are all this benchmark keeps.
    fs.rmSync(out.runDir, { recursive: true, force: true });
    return {
      seed,
      verdict,
      lostUpdates: r.lostUpdates,
      anomaly: p.expect === 'lost' ? r.lostUpdates > 0 || r.confirmedOverlaps > 0 : r.valid === false,
      firstAnomalyMs,
      fired: count?.fired ?? null,
      hits: typeof count?.hit === 'number' ? count.hit : null,
      committedWrites: r.progress.committedWrites,
      unknownReasons: r.unknownReasons,
    };
  } catch (err) {
    return {
      seed,
      verdict: 'FAILED',
      lostUpdates: 0,
      anomaly: false,
      firstAnomalyMs: null,
      fired: null,
      hits: null,
      committedWrites: 0,
      unknownReasons: [],
      error: (err as Error).message.split('\n')[0],
    };
  }
}

/** Every cell, oracle first (its order), then the gallery (alphabetical, each case then its twin). */
async function plan(): Promise<Plan[]> {
  const strategies = await builtinStrategies();
  const out: Plan[] = [];
  for (const lock of BUILTIN_LOCKS) {
    // The row's token, as its cells tell it (locks/lock-finding.ts): the no-lock baseline is not a lock whose
    // detection we measure; a lock that is its own fence (postgres: its version check) has safe cells of interest.
    const { token } = lockFinding(lock);
    if (token === 'no-lock') continue;
    for (const col of ORACLE_COLUMNS) {
      const o = ORACLE[lock][col.id];
      if (o.decided !== 'measured') continue;
      // Safe cells: the fenced ones and those of a lock that is its own fence; the no-fault cells are the matrix's.
      const safeOfInterest = o.expect === 'safe' && (col.fencing || token === 'own-fence');
      if (o.expect !== 'lost' && !safeOfInterest) continue;
      out.push({
        cell: `${lock} × ${col.title}`,
        source: 'faults',
        expect: o.expect === 'lost' ? 'lost' : 'safe',
        fault: col.faults[0] ?? 'none',
        config: (b, seed) =>
          cellConfig(b, {
            strategy: strategies[lock],
            faults: col.faults,
            fencing: col.fencing,
            seed,
            maxIntervalMs: col.maxIntervalMs,
            minThinkTtlFraction: col.minThinkTtlFraction,
          }),
      });
    }
  }
  const cases = fs
    .readdirSync(GALLERY)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.fixed.ts') && f !== 'exposed-by.ts')
    .sort();
  for (const f of cases) {
    const name = f.slice(0, -'.ts'.length);
    const by = ((await import(path.join(GALLERY, f))) as { exposedBy: ExposedBy }).exposedBy;
    for (const [file, expect] of [
      [`${name}.ts`, 'lost'],
      [`${name}.fixed.ts`, 'safe'],
    ] as const) {
      out.push({
        source: 'gallery',
        cell: `gallery ${expect === 'lost' ? name : `${name}.fixed`} × ${by.nemesis}`,
        expect,
        fault: by.nemesis,
        // As the gallery test: the case's own args after the defaults (later occurrences win).
        config: (b, seed) =>
          resolveConfig([
            `--lock=./examples/broken/${file}`,
            `--nemesis=${by.nemesis}`,
            `--time-limit=${b.timeLimitS}`,
            ...by.args,
            ...(b.stopOnLostUpdate ? ['--stop-on-lost-update'] : []),
            `--seed=${seed}`,
            `--results=${b.resultsDir}`,
          ]),
      });
    }
  }
  return out;
}
