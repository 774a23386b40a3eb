import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { shownPath } from '../common/shown-path.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { replay } from '../repro/replay-command.ts';
import { replayInput, type ReplayInput } from '../repro/replay-input.ts';
import { rateText } from '../repro/wilson.ts';
import type { NightlyCell } from './nightly-result.ts';

/**
 * A user's known bugs, checked every night: each one a bundle (`repro` wrote it) or a scenario file kept in a folder
 * (`--known-bugs`, else ./fencepost.known-bugs/ when it exists), replayed KNOWN_BUG_RUNS times — and it must still
 * reproduce (etcd's robustness suite made that a gate in 2026: a harness change that stops catching a known bug is
 * incomplete). Each is a cell of the night, expected `lost`: it joins the junit, the summary and the exit code.
 */
export const KNOWN_BUGS_DEFAULT = 'fencepost.known-bugs';
/** Runs per known bug a night: a scripted bug reproduces every time; three keep the night short and show a flake. */
export const KNOWN_BUG_RUNS = 3;

/** The folder of known bugs the night checks, or null for none. */
export function knownBugsDir(given: string | null): string | null {
  if (given) return given;
  return fs.existsSync(KNOWN_BUGS_DEFAULT) ? path.resolve(KNOWN_BUGS_DEFAULT) : null;
}

/**
 * Every known bug of `dir`, read and checked before the night starts (a damaged one is a 254 naming it): bundle
 * folders, bundles' .tgz, and scenario files, in name order.
 */
export async function readKnownBugs(dir: string): Promise<{ entry: string; input: ReplayInput }[]> {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new HarnessError('bad-arguments', `nightly --known-bugs=${dir}: no such folder.`, {
      hint: 'keep each known bug there as a bundle (fencepost repro <run-dir>) or a scenario file',
    });
  const entries = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter(
      (e) => (e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'bundle.json'))) || /\.(json|tgz)$/.test(e.name),
    )
    .map((e) => path.join(dir, e.name))
    .sort();
  const bugs = [];
  for (const entry of entries) {
    const input = await replayInput(entry);
    if (!input.scenario.lock)
      throw new HarnessError('bad-arguments', `nightly: known bug ${shownPath(entry)} names no lock.`, {
        hint: 'add "lock": "<lock>" to its scenario: a known bug is a bug of one lock',
      });
    bugs.push({ entry, input });
  }
  return bugs;
}

/** Each known bug replayed, as a cell of the night (expected: it still fails the same way). */
export async function knownBugCells(
  bugs: readonly { entry: string; input: ReplayInput }[],
  opts: { resultsDir: string; seed: number; firstIndex: number; shutdown: Shutdown; log: (line: string) => void },
): Promise<NightlyCell[]> {
  const cells: NightlyCell[] = [];
  for (const [i, { entry, input }] of bugs.entries()) {
    const started = performance.now();
    const { runs, summary } = await replay(
      input,
      [`--results=${opts.resultsDir}`, `--seed=${opts.seed}`],
      KNOWN_BUG_RUNS,
      opts.shutdown,
      (l) => opts.log(`known bug ${input.name}: ${l}`),
    );
    const followed = runs.filter((r) => r.followed);
    const reproduced = followed.filter((r) => r.reproduced);
    const observed = !followed.length ? 'unknown' : reproduced.length ? 'lost' : 'safe';
    opts.log(
      `known bug ${input.name}: ${rateText(summary.rate)} — ${observed === 'lost' ? 'still reproduces ✓' : 'no longer reproduces ✗'}`,
    );
    cells.push({
      index: opts.firstIndex + i,
      from: `known bug ${shownPath(entry)}`,
      lock: input.scenario.lock!,
      fault: input.expect?.story ?? 'none',
      fencing: summary.json.fencing === true,
      column: `known bug: ${input.name}`,
      runDir: runs.at(-1)?.runDir ?? '',
      expected: 'lost',
      observed,
      matched: observed === 'lost',
      lostUpdates: followed.filter((r) => r.signature?.anomaly === 'lost-update').length,
      staleWritesRejected: followed.reduce((n, r) => n + r.staleWritesRejected, 0),
      acquireP50: 0,
      acquireP99: 0,
      note: `${rateText(summary.rate)}; ${runs.length - followed.length} of ${runs.length} runs could not follow the script`,
      decided: 'measured',
      wallMs: Math.round(performance.now() - started),
      runs: runs.map((r) => ({
        seed: opts.seed,
        runDir: r.runDir,
        verdict: verdictWord(r.verdict),
        lostUpdates: r.signature?.anomaly === 'lost-update' ? 1 : 0,
        staleWritesRejected: r.staleWritesRejected,
        seen: !r.followed ? 'unknown' : r.reproduced ? 'lost' : 'safe',
        conclusive: r.followed,
        ...(r.followed ? {} : { why: r.diverged ?? 'could not follow its script' }),
      })),
    });
  }
  return cells;
}
