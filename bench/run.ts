import { ALIASES, BENCHMARKS, type Benchmark } from './benchmarks.ts';
import { goalsTable, saveOutcome, type Goal } from './outcome.ts';

/**
 * `npm run bench -- <name> [args…]` runs one benchmark; `npm run bench -- all [--quick]` runs every one (small,
 * with `--quick`) and ends with one table of goals met and missed. Each benchmark's outcome is written as JSON
 * under results/bench/. Exit 0 when every goal was met (or could not be measured here), 1 when one was missed,
 * 254 for a bad name.
 */
const USAGE = `usage: npm run bench -- <${[...BENCHMARKS.map((b) => b.name), 'all'].join('|')}> [args…]
       npm run bench -- all [--quick]     every benchmark (small with --quick: under 10 minutes), then one table of goals

${BENCHMARKS.map((b) => `  ${b.name.padEnd(13)} ${b.summary}`).join('\n')}
${Object.entries(ALIASES)
  .map(([a, t]) => `  ${a.padEnd(13)} = ${t.name} ${t.args.join(' ')}`)
  .join('\n')}`;

const [name, ...args] = process.argv.slice(2);
if (name === 'all') process.exit(await runAll(args));
const alias = name === undefined ? undefined : ALIASES[name];
const bench = BENCHMARKS.find((b) => b.name === (alias?.name ?? name));
if (!bench) {
  console.error(`${name ? `no benchmark "${name}"` : 'which benchmark?'}\n${USAGE}`);
  process.exit(254);
}
const goals = await runOne(bench, [...(alias?.args ?? []), ...args]);
process.exit(goals.some((g) => g.met === false) ? 1 : 0);

async function runOne(b: Benchmark, benchArgs: string[]): Promise<Goal[]> {
  const outcome = await (await b.load()).run(benchArgs);
  const file = saveOutcome(outcome);
  console.log(`\n${goalsTable(outcome.goals.map((goal) => ({ benchmark: b.name, goal })))}\n\nwrote ${file}`);
  return outcome.goals;
}

async function runAll(allArgs: string[]): Promise<number> {
  const unknown = allArgs.filter((a) => a !== '--quick');
  if (unknown.length > 0) {
    console.error(`all: unknown argument(s) ${unknown.join(' ')}; only --quick\n${USAGE}`);
    return 254;
  }
  const quick = allArgs.includes('--quick');
  const started = performance.now();
  const rows: { benchmark: string; goal: Goal }[] = [];
  for (const b of BENCHMARKS) {
    console.log(`\n=== bench ${b.name}${quick ? ` ${b.quick.join(' ')}` : ''} ===`);
    try {
      for (const goal of await runOne(b, quick ? b.quick : [])) rows.push({ benchmark: b.name, goal });
    } catch (e) {
      // One broken benchmark must not hide the others' numbers; it shows as a missed goal.
      console.error(`bench ${b.name} failed: ${(e as Error).stack ?? e}`);
      rows.push({
        benchmark: b.name,
        goal: { what: 'ran to the end', goal: 'no error', measured: (e as Error).message.split('\n')[0], met: false },
      });
    }
  }
  const minutes = (performance.now() - started) / 60_000;
  const missed = rows.filter((r) => r.goal.met === false).length;
  console.log(
    `\n=== all benchmarks${quick ? ' (quick)' : ''}: ${rows.length - missed} of ${rows.length} goals met or skipped, ${missed} missed, in ${minutes.toFixed(1)} min ===\n`,
  );
  console.log(goalsTable(rows));
  return missed > 0 ? 1 : 0;
}
