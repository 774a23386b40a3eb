import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { HarnessError } from '../../common/errors.ts';
import { parseArgv, type OptionSpec } from '../../harness/option-table.ts';
import { roundResults, soakText, tally, type RoundResult, type VitestJson } from './soak-report.ts';

/**
 * `npm run test:soak -- <test files or folders…> [--project=<tier>] [--times=N] [--hog]` runs the same vitest
 * selection N times in a row — optionally beside a CPU hog (one `yes > /dev/null`, the way a busy CI machine starves
 * a run; killed at the end, on an error and on Ctrl-C alike) — and lists every test that ever failed, with how often
 * it failed and passed, the rounds, the seeds its failures printed and their first lines. A flake is found here,
 * before it lands. Exit 0 when no test failed in any round, 1 otherwise, 254 for bad arguments. Each round's JSON
 * report is kept under test-output/soak/, with soak.json: every test's passes and failures.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const OPTIONS = [
  { name: 'times', kind: 'int', min: 1, max: 1000, default: 10, help: 'rounds' },
  { name: 'hog', kind: 'bool', default: false, help: 'run one `yes > /dev/null` beside every round' },
  { name: 'project', kind: 'string', help: 'one vitest project (tier): unit, servers, browser, docker' },
] as const satisfies readonly OptionSpec[];

function usage(message: string): never {
  console.error(
    `test:soak: ${message}\nusage: npm run test:soak -- <test files or folders…> [--project=<tier>] [--times=N] [--hog]`,
  );
  process.exit(254);
}

function parse(argv: readonly string[]) {
  try {
    const { values, words } = parseArgv(argv, OPTIONS, { words: 'collect' });
    // A tier alone is a selection too (--project=unit: the whole unit tier); nothing at all is not.
    if (words.length === 0 && values.project === undefined)
      usage('which tests? name their files or folders, or a tier with --project');
    return { ...values, files: words };
  } catch (e) {
    if (e instanceof HarnessError) usage(e.message);
    throw e;
  }
}

function startHogs(): ChildProcess[] {
  // `yes` writes as fast as it can to /dev/null: one busy core, nothing else touched (issue 44's soak: the tiers
  // beside one `yes > /dev/null`, on 2 cores half the machine).
  return [spawn('yes', { stdio: ['ignore', fs.openSync('/dev/null', 'w'), 'ignore'] })];
}

async function round(i: number, files: readonly string[], project: string | undefined, dir: string) {
  const out = path.join(dir, `round-${i}.json`);
  const started = Date.now();
  const r = await execa(
    'npx',
    [
      'vitest',
      'run',
      ...(project ? ['--project', project] : []),
      ...files,
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${out}`,
    ],
    { cwd: ROOT, reject: false, all: true },
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (!fs.existsSync(out)) {
    // vitest ended without a report (it crashed, or a file failed to load): the whole round is one failure.
    const message = (r.all ?? '')
      .split('\n')
      .filter((l) => l.trim())
      .slice(-3)
      .join(' / ');
    const failed: RoundResult = {
      file: '(vitest)',
      test: `exit ${r.exitCode}, no report`,
      status: 'failed',
      message,
      seeds: [],
    };
    return { results: [failed], seconds };
  }
  const report = JSON.parse(fs.readFileSync(out, 'utf8')) as VitestJson;
  return { results: roundResults(report, ROOT), seconds };
}

const opts = parse(process.argv.slice(2));
const dir = path.join(ROOT, 'test-output', 'soak');
fs.mkdirSync(dir, { recursive: true });
const hogs = opts.hog ? startHogs() : [];
const stopHogs = () => hogs.forEach((h) => h.kill('SIGKILL'));
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const rounds: RoundResult[][] = [];
for (let i = 1; i <= opts.times; i++) {
  // A stale report of an earlier soak must not stand in for a round whose vitest wrote none.
  fs.rmSync(path.join(dir, `round-${i}.json`), { force: true });
  const r = await round(i, opts.files, opts.project, dir);
  rounds.push(r.results);
  const count = (s: RoundResult['status']) => r.results.filter((x) => x.status === s).length;
  console.log(
    `round ${i}/${opts.times}: ${count('passed')} passed, ${count('failed')} failed, ${r.seconds} s${opts.hog ? ` (beside ${hogs.length} CPU hog(s))` : ''}`,
  );
}
stopHogs();
const tallies = tally(rounds);
console.log(`\n${soakText(tallies, opts.times, opts.hog)}`);
fs.writeFileSync(
  path.join(dir, 'soak.json'),
  JSON.stringify(
    { rounds: opts.times, hog: opts.hog, project: opts.project ?? null, files: opts.files, tests: tallies },
    null,
    2,
  ),
);
process.exit(tallies.some((t) => t.rounds.length > 0) ? 1 : 0);
