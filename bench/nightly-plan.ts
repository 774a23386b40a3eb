import { HarnessError } from '../common/errors.ts';
import { benchArgs, commaList } from './bench-args.ts';
import { bad, type OptionSpec } from '../harness/option-table.ts';
import { CLI } from '../common/cli-name.ts';
import { LIBRARY_TURNS, libraryRowsOf } from '../nightly/nightly-library-sample.ts';
import { nightlyPlan } from '../nightly/nightly-plan.ts';
import { readNightlyFiles, type NightlyResult } from '../nightly/nightly-result.ts';
import { NIGHTLY_TIME_LIMIT_S } from '../nightly/nightly.ts';
import { NIGHTLY_PARALLEL } from '../nightly/nightly-config.ts';
import type { MatrixTables } from '../matrix/matrix-columns.ts';
import {
  GOAL_SHARDS,
  SHARD_GOAL_MIN,
  WHOLE_GOAL_MIN,
  cellTimes,
  measuredCells,
  planGoals,
  planTime,
  type PlanTime,
} from './nightly-plan-time.ts';
import type { BenchOutcome } from './outcome.ts';

/**
 * `npm run bench -- nightly-plan [--from=<dir>,…] [--matrix=all|faults|remedies] [--time-limit=10]
 *  [--shards=3 | --shard=<i>/<n>] [--parallel=<n>]`
 *
 * The expected wall time of a nightly plan, from the cells' measured wall times in stored nights (each
 * nightly*.json in the `--from` folders — a night's `--results`, default `results` — records `wallMs` per
 * measured cell), scaled to `--time-limit` (bench/nightly-plan-time.ts): the whole plan and each of its shards, so
 * a user can size them. Cells no stored night measured get the median of those that were, and are counted apart.
 * Goals (issue 24): both tables at --time-limit=10 in ≤ 15 min on one machine, and ≤ 6 min a shard with 3 shards.
 */

const OPTIONS = [
  {
    name: 'from',
    kind: 'string',
    value: 'dir,…',
    default: 'results',
    help: "folders of stored nights (a night's --results)",
    parse: commaList('from'),
  },
  { name: 'matrix', kind: 'enum', choices: ['all', 'faults', 'remedies'], default: 'all', help: 'the tables planned' },
  { name: 'time-limit', kind: 'int', value: 's', min: 1, default: NIGHTLY_TIME_LIMIT_S, help: "each cell's run" },
  { name: 'shards', kind: 'int', min: 1, default: GOAL_SHARDS, help: 'shards the plan is split into' },
  { name: 'shard', kind: 'string', value: 'i/n', help: 'plan one shard only', parse: oneShard },
  // As `nightly` would run the plan here: its default --parallel (2 on 2 cores).
  { name: 'parallel', kind: 'int', min: 1, default: NIGHTLY_PARALLEL, help: 'cells run at once' },
] as const satisfies readonly OptionSpec[];

function oneShard(raw: string): { index: number; count: number } {
  const one = /^(\d+)\/(\d+)$/.exec(raw);
  const shard = one ? { index: Number(one[1]), count: Number(one[2]) } : null;
  if (!shard || shard.index < 1 || shard.index > shard.count)
    throw bad(`--shard=${raw}: must be <i>/<n> with 1 ≤ i ≤ n.`);
  return shard;
}

export async function run(args: string[]): Promise<BenchOutcome> {
  const o = benchArgs('nightly-plan', args, OPTIONS);
  const from = o.from;
  const tables: MatrixTables = o.matrix;
  const timeLimitS = o['time-limit'];
  const shard = o.shard ?? null;
  const shards = o.shards;
  const parallel = o.parallel;

  const { nights, missing } = storedNights(from);
  const measured = measuredCells(nights);
  // A night runs one turn of the npm library rows (nightly-library-sample.ts): the goals are judged on the slowest.
  const turns = Array.from({ length: LIBRARY_TURNS }, (_, turn) => {
    const p = nightlyPlan([], tables, turn);
    const t = cellTimes(p, measured, timeLimitS);
    return { turn, plan: p, times: t, ms: t ? planTime(p, t, null, timeLimitS, parallel).ms : 0 };
  });
  const slowest = turns.reduce((a, b) => (b.ms > a.ms ? b : a));
  const { plan, times } = slowest;
  const settings = `--matrix=${tables} --time-limit=${timeLimitS}${parallel > 1 ? ` --parallel=${parallel}` : ''}`;
  if (!times) {
    const why = `no stored night with per-cell wall times in ${from.join(', ')}${missing.length ? ` (${missing.join('; ')})` : ''}: run \`${CLI} nightly --results=<dir>\` once, then --from=<dir>`;
    console.log(`nightly-plan: ${why}`);
    return {
      benchmark: 'nightly-plan',
      goals: skippedGoals(settings, why),
      data: { from, tables, timeLimitS, nights: 0 },
    };
  }

  console.log(`nightly-plan ${settings}, from ${nights.length} stored night file(s) in ${from.join(', ')}\n`);
  for (const t of times.filter((t) => t.from !== 'not run'))
    console.log(
      `  ${(t.ms / 1000).toFixed(0).padStart(5)} s  ${t.from === 'median' ? '(median)' : '        '}  ${t.label}`,
    );
  console.log(
    `\n  the npm library rows take turns (${LIBRARY_TURNS} nights run them all): ${turns.map((t) => `turn ${t.turn + 1} (${libraryRowsOf(t.turn).join(', ')}): ${min(t.ms)} min`).join('; ')}; below, the slowest night, turn ${slowest.turn + 1}`,
  );
  const whole = planTime(plan, times, null, timeLimitS, parallel);
  const parts = shard
    ? [planTime(plan, times, shard, timeLimitS, parallel)]
    : Array.from({ length: shards }, (_, i) =>
        planTime(plan, times, { index: i + 1, count: shards }, timeLimitS, parallel),
      );
  console.log(`\n  ${line(whole)}`);
  for (const p of parts) console.log(`  ${line(p)}`);

  const fullPlan = tables === 'all' && timeLimitS === NIGHTLY_TIME_LIMIT_S;
  const goals = planGoals(settings, whole, !shard && shards === GOAL_SHARDS ? parts : null, fullPlan);
  return {
    benchmark: 'nightly-plan',
    goals,
    data: { from, tables, timeLimitS, nights: nights.length, libraryTurn: slowest.turn, whole, parts, times },
  };
}

/** Every stored night under the folders, and why a folder gave none. */
function storedNights(from: readonly string[]): { nights: NightlyResult[]; missing: string[] } {
  const nights: NightlyResult[] = [];
  const missing: string[] = [];
  for (const dir of from) {
    try {
      nights.push(...readNightlyFiles(dir).map((n) => n.result));
    } catch (err) {
      if (!(err instanceof HarnessError)) throw err;
      missing.push(err.message);
    }
  }
  return { nights, missing };
}

/** Both goals, skipped: nothing measured to judge them by. */
function skippedGoals(settings: string, why: string): BenchOutcome['goals'] {
  return [
    { what: `nightly ${settings}, one machine`, goal: `≤ ${WHOLE_GOAL_MIN} min`, measured: '-', met: 'skipped', why },
    {
      what: `nightly ${settings}, slowest of ${GOAL_SHARDS} shards`,
      goal: `≤ ${SHARD_GOAL_MIN} min`,
      measured: '-',
      met: 'skipped',
      why,
    },
  ];
}

const min = (ms: number) => (ms / 60_000).toFixed(1);
const line = (p: PlanTime) =>
  `${p.shard ? `shard ${p.shard.index}/${p.shard.count}` : 'whole plan'}: ${p.cells} cells, ${min(p.ms)} min expected${p.estimated ? ` (${p.estimated} from the median)` : ''}`;
