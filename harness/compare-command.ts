import { CLI } from '../common/cli-name.ts';
import { shownPath } from '../common/shown-path.ts';
import fs from 'node:fs';
import path from 'node:path';

import { EXIT } from '../common/exit-codes.ts';
import { renderCompare } from '../report/compare-page.ts';
import { notComparable } from '../report/comparability.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { hasResults, readRun, RUN_FILES } from '../store/run-dir.ts';

const USAGE = `usage: ${CLI} compare <run-dir> <run-dir> [...]   (run dirs look like results/<lock>/<timestamp>)`;

/**
 * The page's name, from the runs it compares: one `compare.html` for all was overwritten by the next compare of the
 * session. A run in another folder than the first is named with its folder (`etcd-2026-…`); the same runs compared
 * again write the same page.
 */
export function compareFileName(dirs: readonly string[], outDir: string): string {
  const names = dirs.map((d) => {
    // Through a link (results/latest) to the run's own folder name, which stays the same.
    const abs = fs.realpathSync(d);
    return path.dirname(abs) === outDir
      ? path.basename(abs)
      : `${path.basename(path.dirname(abs))}-${path.basename(abs)}`;
  });
  return `compare-${names.join('-vs-')}.html`;
}

/**
 * `compare <run-dir> <run-dir> […]` → compare-<run>-vs-<run>.html beside the first run (its lock's folder), path
 * printed.
 * Bad arguments — fewer than two dirs, a dir without results — print why and return 254 before writing.
 */
export async function compareCommand(
  rest: readonly string[],
  config: { readonly resultsDir: string },
): Promise<number> {
  const dirs = rest.filter((a) => !a.startsWith('--'));
  if (dirs.length < 2) {
    console.error(`fencepost: compare needs at least two run dirs, got ${dirs.length}.`);
    console.error(`  → ${USAGE}; runs so far are listed in ${shownPath(path.join(config.resultsDir, 'index.html'))}`);
    return EXIT.badArguments;
  }
  for (const d of dirs) {
    if (!fs.existsSync(d) || !fs.statSync(d).isDirectory()) {
      console.error(`fencepost: compare: ${d} is not a directory.`);
      console.error(`  → ${USAGE}`);
      return EXIT.badArguments;
    }
    if (!hasResults(d)) {
      console.error(
        `fencepost: compare: ${d} has no ${RUN_FILES.results} (not a run dir, or the run stopped before its checkers ran).`,
      );
      console.error(`  → re-check it with \`${CLI} check ${d}\`, or pick another run`);
      return EXIT.badArguments;
    }
  }
  const runs = dirs.map((d) => readRun(path.resolve(d), { withHistory: false }));
  const broken = runs.find((r) => r.problems.some((p) => p.startsWith(RUN_FILES.results)));
  if (broken) {
    console.error(`fencepost: compare: ${broken.dir}: ${broken.problems.join('; ')}.`);
    return EXIT.badArguments;
  }
  const outDir = path.dirname(path.resolve(dirs[0]));
  const file = path.join(outDir, compareFileName(dirs, outDir));
  fs.writeFileSync(file, renderCompare(runs, { outDir }));
  // The terminal says what the page says first: each run's verdict, and whether the runs can be compared at all.
  runs.forEach((r, i) =>
    console.log(
      `run ${i + 1}: ${verdictWord(r.results.valid)}  --lock=${r.test.lock}  lost updates ${r.results.lostUpdates ?? '?'}  ${shownPath(r.dir)}`,
    ),
  );
  const reasons = notComparable(runs);
  if (reasons.length)
    console.log(`warning: these runs are not comparable, their counts differ for this alone: ${reasons.join('; ')}`);
  console.log(`wrote ${shownPath(file)}`);
  return EXIT.valid;
}
