import fs from 'node:fs';
import { expectedSignature } from '../scenario/scenario-expect.ts';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { shownPath } from '../common/shown-path.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { replay, replayOptionsOf } from '../repro/replay-command.ts';
import { removeUnpacked, replayInput, type ReplayInput } from '../repro/replay-input.ts';
import { notOurs } from '../common/ownership.ts';
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

/**
 * The file of a known-bugs folder that trusts its bundles' code, in `sha256sum`'s format: one `<sha256>  <entry>/<file>`
 * line per file (`bug-1/lock/<plugin>`, `bug-2.tgz/lock/<program>`). The night replays unattended, so the trust is
 * per file and per content, not a flag: a bundle dropped in later, or a file changed, is refused until its user reads
 * it and adds its line (audit R5). Kept in the folder, so the folder must be theirs and private.
 */
export const KNOWN_BUGS_TRUST_FILE = 'fencepost-trusted-code.sha256';

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
  const why = notOurs(dir, 'dir', { private: true });
  if (why)
    throw new HarnessError('bad-arguments', `nightly --known-bugs=${dir}: the folder ${why}.`, {
      hint: `its bundles' code runs every night as you, trusted by its ${KNOWN_BUGS_TRUST_FILE}: keep it in a folder of your own that no one else can write (chmod go-w)`,
    });
  const trusted = trustedLines(dir);
  const bugs: { entry: string; input: ReplayInput }[] = [];
  try {
    for (const entry of entries) {
      const input = await replayInput(entry);
      bugs.push({ entry, input });
      if (!input.scenario.lock)
        throw new HarnessError('bad-arguments', `nightly: known bug ${shownPath(entry)} names no lock.`, {
          hint: 'add "lock": "<lock>" to its scenario: a known bug is a bug of one lock',
        });
      const lines = input.code.map((c) => `${c.sha256}  ${path.basename(entry)}/${c.file}`);
      const missing = lines.filter((l) => !trusted.has(l));
      if (missing.length)
        throw new HarnessError(
          'bad-arguments',
          `nightly: known bug ${path.basename(entry)} runs its own code, which ${path.join(dir, KNOWN_BUGS_TRUST_FILE)} does not list. Nothing was started.`,
          { hint: `read the files, then add these lines to that file:\n${missing.map((l) => `    ${l}`).join('\n')}` },
        );
    }
  } catch (err) {
    bugs.forEach((b) => removeUnpacked(b.input));
    throw err;
  }
  return bugs;
}

/** The trust file's lines, trimmed (an absent file trusts nothing). */
function trustedLines(dir: string): Set<string> {
  const file = path.join(dir, KNOWN_BUGS_TRUST_FILE);
  if (!fs.existsSync(file)) return new Set();
  return new Set(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  );
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
      replayOptionsOf({ resultsDir: opts.resultsDir, seed: opts.seed }),
      KNOWN_BUG_RUNS,
      opts.shutdown,
      (l) => opts.log(`known bug ${input.name}: ${l}`),
    ).finally(() => removeUnpacked(input));
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
      fault: expectedSignature(input.expect)?.story ?? 'none',
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
