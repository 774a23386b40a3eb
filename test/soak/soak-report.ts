/**
 * What a soak learns from one round: vitest's JSON report (`--reporter=json`) → the tests that failed, each with
 * the seeds its failure printed (a run's seed is in its summary, its replay line and most assertion messages), so a
 * flake found by a soak can be replayed.
 */
export interface RoundFailure {
  /** The test file, relative to the checkout. */
  file: string;
  /** describe › it, as vitest names it. */
  test: string;
  /** The failure's first line. */
  message: string;
  seeds: string[];
}

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

export function seedsIn(text: string): string[] {
  return [...new Set([...text.matchAll(SEED)].map((m) => m[1]))];
}

/** Every failed test of one round; a file that failed outside any test (its hook, an import) counts as one. */
export function roundFailures(report: VitestJson, root: string): RoundFailure[] {
  const out: RoundFailure[] = [];
  for (const f of report.testResults) {
    const file = f.name.startsWith(root) ? f.name.slice(root.length).replace(/^\//, '') : f.name;
    const failed = f.assertionResults.filter((t) => t.status === 'failed');
    for (const t of failed) {
      const text = (t.failureMessages ?? []).join('\n');
      out.push({ file, test: t.fullName, message: firstLine(text), seeds: seedsIn(text) });
    }
    if (failed.length === 0 && f.status === 'failed') {
      const text = f.message ?? '';
      out.push({
        file,
        test: '(the file itself: a hook or its import)',
        message: firstLine(text),
        seeds: seedsIn(text),
      });
    }
  }
  return out;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? '(no message)';
}

export interface SoakTally {
  file: string;
  test: string;
  /** Rounds (1-based) in which it failed. */
  rounds: number[];
  seeds: string[];
  messages: string[];
}

/** Failures over all rounds, one entry per test, the most frequent first. */
export function tally(rounds: readonly RoundFailure[][]): SoakTally[] {
  const byTest = new Map<string, SoakTally>();
  rounds.forEach((failures, i) => {
    for (const f of failures) {
      const key = `${f.file}\0${f.test}`;
      const t = byTest.get(key) ?? { file: f.file, test: f.test, rounds: [], seeds: [], messages: [] };
      t.rounds.push(i + 1);
      for (const s of f.seeds) if (!t.seeds.includes(s)) t.seeds.push(s);
      if (!t.messages.includes(f.message)) t.messages.push(f.message);
      byTest.set(key, t);
    }
  });
  return [...byTest.values()].sort((a, b) => b.rounds.length - a.rounds.length || a.file.localeCompare(b.file));
}

/** The soak's closing text: each test that ever failed (rounds, seeds, messages), then one line of counts. */
export function soakText(tallies: readonly SoakTally[], rounds: number, hog: boolean): string {
  const lines = tallies.flatMap((t) => [
    `FAILED ${t.rounds.length}/${rounds}  ${t.file} › ${t.test}`,
    `    rounds ${t.rounds.join(', ')}; seeds ${t.seeds.length ? t.seeds.join(', ') : 'none printed'}`,
    ...t.messages.map((m) => `    ${m.length > 200 ? `${m.slice(0, 200)}…` : m}`),
  ]);
  const beside = hog ? ' beside a CPU hog' : '';
  lines.push(
    tallies.length
      ? `soak: ${tallies.length} test(s) failed at least once in ${rounds} round(s)${beside}`
      : `soak: 0 failures in ${rounds} round(s)${beside}`,
  );
  return lines.join('\n');
}
