/**
 * What a soak learns from its rounds: vitest's JSON report (`--reporter=json`) → every test's outcome, the failed
 * ones with the seeds their failure printed (a run's seed is in its summary, its replay line and most assertion
 * messages), so a flake found by a soak can be replayed; then, over all rounds, each test's passes and failures.
 */
export interface RoundResult {
  /** The test file, relative to the checkout. */
  file: string;
  /** describe › it, as vitest names it. */
  test: string;
  status: 'passed' | 'failed' | 'skipped';
  /** The failure's first line ('' unless failed). */
  message: string;
  seeds: string[];
}

/** A failed test of one round. */
export type RoundFailure = Omit<RoundResult, 'status'>;

/** The parts of vitest's JSON report a soak reads. */
export interface VitestJson {
  numFailedTests: number;
  numPassedTests: number;
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

const SEED = /(?:--seed[= ]|seed[ :=]+)(\d{1,10})/gi;
/** The name a file's own failure (a hook, its import) is tallied under: no test of it ran. */
export const FILE_ITSELF = '(the file itself: a hook or its import)';

export function seedsIn(text: string): string[] {
  return [...new Set([...text.matchAll(SEED)].map((m) => m[1]))];
}

/** Every test of one round with its outcome; a file that failed outside any test (its hook, an import) counts as one. */
export function roundResults(report: VitestJson, root: string): RoundResult[] {
  const out: RoundResult[] = [];
  for (const f of report.testResults) {
    const file = f.name.startsWith(root) ? f.name.slice(root.length).replace(/^\//, '') : f.name;
    for (const t of f.assertionResults) {
      const failed = t.status === 'failed';
      const text = failed ? (t.failureMessages ?? []).join('\n') : '';
      out.push({
        file,
        test: t.fullName,
        status: failed ? 'failed' : t.status === 'passed' ? 'passed' : 'skipped',
        message: failed ? failureText(text) : '',
        seeds: seedsIn(text),
      });
    }
    if (f.status === 'failed' && !f.assertionResults.some((t) => t.status === 'failed')) {
      const text = f.message ?? '';
      out.push({ file, test: FILE_ITSELF, status: 'failed', message: failureText(text), seeds: seedsIn(text) });
    }
  }
  return out;
}

/** The failed tests of one round. */
export function roundFailures(report: VitestJson, root: string): RoundFailure[] {
  return roundResults(report, root)
    .filter((r) => r.status === 'failed')
    .map(({ status: _status, ...f }) => f);
}

/** The longest message a failure keeps: an assertion's text with the run summary it carries, without the stack. */
const MESSAGE_LINES = 30;

/**
 * A failure's message without its stack: the assertion and what the test put in it (a scripted run's every step and
 * its evidence), so a flake that a soak found once can be read without running it again.
 */
export function failureText(text: string): string {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => l.trim() !== '');
  if (from < 0) return '(no message)';
  const body: string[] = [];
  for (const l of lines.slice(from)) {
    if (/^\s+(at |❯ )/.test(l) || body.length === MESSAGE_LINES) break;
    body.push(l);
  }
  return body.join('\n').trimEnd();
}

export interface SoakTally {
  file: string;
  test: string;
  /** Rounds (1-based) in which it failed. */
  rounds: number[];
  /** Rounds in which it passed. */
  passed: number;
  seeds: string[];
  messages: string[];
}

/** Every test over all rounds, one entry per test: the ones that ever failed first, the most frequent first. */
export function tally(rounds: readonly (readonly RoundResult[])[]): SoakTally[] {
  const byTest = new Map<string, SoakTally>();
  rounds.forEach((results, i) => {
    for (const r of results) {
      const key = `${r.file}\0${r.test}`;
      const t = byTest.get(key) ?? { file: r.file, test: r.test, rounds: [], passed: 0, seeds: [], messages: [] };
      byTest.set(key, t);
      if (r.status === 'passed') t.passed++;
      if (r.status !== 'failed') continue;
      t.rounds.push(i + 1);
      for (const s of r.seeds) if (!t.seeds.includes(s)) t.seeds.push(s);
      if (!t.messages.includes(r.message)) t.messages.push(r.message);
    }
  });
  return [...byTest.values()].sort(
    (a, b) => b.rounds.length - a.rounds.length || a.file.localeCompare(b.file) || a.test.localeCompare(b.test),
  );
}

/**
 * The soak's closing text: each test that ever failed (failed and passed counts, the rounds, seeds, messages), then
 * one line of counts over every test.
 */
export function soakText(tallies: readonly SoakTally[], rounds: number, hog: boolean): string {
  const failing = tallies.filter((t) => t.rounds.length > 0);
  const lines = failing.flatMap((t) => [
    `FAILED ${t.rounds.length}/${rounds}, passed ${t.passed}/${rounds}  ${t.file} › ${t.test}`,
    `    rounds ${t.rounds.join(', ')}; seeds ${t.seeds.length ? t.seeds.join(', ') : 'none printed'}`,
    ...t.messages.flatMap((m) => m.split('\n').map((l) => `    ${l.length > 200 ? `${l.slice(0, 200)}…` : l}`)),
  ]);
  const beside = hog ? ' beside a CPU hog' : '';
  const tests = tallies.filter((t) => t.test !== FILE_ITSELF).length;
  const runs = tallies.reduce((n, t) => n + t.passed + t.rounds.length, 0);
  const passed = tallies.reduce((n, t) => n + t.passed, 0);
  const counts = `${tests} test(s); ${passed} of ${runs} test runs passed`;
  lines.push(
    failing.length
      ? `soak: ${failing.length} test(s) failed at least once in ${rounds} round(s)${beside}: ${counts}`
      : `soak: 0 failures in ${rounds} round(s)${beside}: ${counts}`,
  );
  return lines.join('\n');
}
