import { fileURLToPath } from 'node:url';
import { verdictWord } from '../checkers/verdict.ts';
import type { Shutdown } from '../common/shutdown.ts';
import type { LostReplyCell } from '../locks/lost-reply-cell.ts';
import type { LockRow } from '../locks/lock-row.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { replay, replayOptionsOf } from '../repro/replay-command.ts';
import { describeExpect } from '../scenario/scenario-expect.ts';
import { replayInput } from '../repro/replay-input.ts';
import type { ReplayRun } from '../repro/replay-tally.ts';
import { rateText, wilson } from '../repro/wilson.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { LIBRARY_TURNS } from './nightly-library-sample.ts';
import type { NightlyCell } from './nightly-result.ts';

/**
 * The rows' lost-reply cells (locks/lost-reply-cell.ts), checked by the nightly: each one's scenario replayed
 * LOST_REPLY_RUNS times with its row's lock, matched when every run that followed its script showed the row's
 * prediction. They take turns as the library rows do (a night's turn is its seed's): one cell a night while there
 * are three. A cell's 3 runs took 4–10 s on a shared 2-core machine (redis 8.1 s, zookeeper 3.9 s, curator 9.6 s,
2026-12-06), so a turn adds ~10 s to the night's 10 min goal, and three nights run them all.
 */
export const LOST_REPLY_RUNS = 3;

/** Every row's lost-reply cells, in the registry's order, then each row's own. */
export const LOST_REPLY_CELLS: readonly { lock: string; cell: LostReplyCell }[] = BUILTIN_LOCKS.flatMap((lock) =>
  ((LOCK_ROWS[lock] as LockRow).lostReplies ?? []).map((cell) => ({ lock, cell })),
);

/** The cells a night of `turn` runs: every LIBRARY_TURNS-th, from the turn's own place ('all': every one). */
export function lostReplyCellsOf(turn: number | 'all'): { lock: string; cell: LostReplyCell }[] {
  return LOST_REPLY_CELLS.filter((_, i) => turn === 'all' || i % LIBRARY_TURNS === turn);
}

/** A cell's scenario file: its path is from the repository's root, wherever the night runs. */
export function lostReplyScenarioFile(cell: LostReplyCell): string {
  return fileURLToPath(new URL(`../${cell.scenario}`, import.meta.url));
}

/**
 * One replayed cell as a cell of the night. Expected `safe` (a lost reply's classes are liveness findings, never a
 * lost update) and the prediction: matched when runs followed their script and every one of them showed it.
 * Pure, from the replay's runs.
 */
export function lostReplyNightCell(
  at: { index: number; lock: string; cell: LostReplyCell; seed: number; wallMs: number },
  runs: readonly ReplayRun[],
): NightlyCell {
  const followed = runs.filter((r) => r.followed);
  const reproduced = followed.filter((r) => r.reproduced);
  const lost = followed.filter((r) => r.signature?.anomaly === 'lost-update').length;
  const all = followed.length > 0 && reproduced.length === followed.length;
  const observed = !followed.length ? 'unknown' : all ? 'safe' : lost ? 'lost' : 'invalid';
  const rate = rateText(wilson(reproduced.length, followed.length), 'as predicted');
  const other = followed.find((r) => !r.reproduced);
  return {
    index: at.index,
    from: 'oracle',
    why: at.cell.why,
    lock: at.lock,
    fault: at.cell.scenario,
    fencing: false,
    column: `lost reply: ${at.cell.title}`,
    runDir: runs.at(-1)?.runDir ?? '',
    expected: 'safe',
    observed,
    matched: observed === 'safe',
    lostUpdates: lost,
    staleWritesRejected: followed.reduce((n, r) => n + r.staleWritesRejected, 0),
    acquireP50: 0,
    acquireP99: 0,
    note: `predicted ${describeExpect(at.cell.expect)}: ${rate}${other ? `; ${other.line}` : ''}; ${runs.length - followed.length} of ${runs.length} runs could not follow the script`,
    decided: 'measured',
    wallMs: at.wallMs,
    runs: runs.map((r) => ({
      seed: at.seed,
      runDir: r.runDir,
      verdict: verdictWord(r.verdict),
      lostUpdates: r.signature?.anomaly === 'lost-update' ? 1 : 0,
      staleWritesRejected: r.staleWritesRejected,
      seen: !r.followed ? 'unknown' : r.reproduced ? 'safe' : 'lost',
      conclusive: r.followed,
      ...(r.followed ? {} : { why: r.diverged ?? 'could not follow its script' }),
    })),
  };
}

/** The night's turn of lost-reply cells, each replayed with its row's lock and judged by the row's prediction. */
export async function lostReplyCells(
  turn: number | 'all',
  opts: { resultsDir: string; seed: number; firstIndex: number; shutdown: Shutdown; log: (line: string) => void },
): Promise<NightlyCell[]> {
  const cells: NightlyCell[] = [];
  for (const [i, { lock, cell }] of lostReplyCellsOf(turn).entries()) {
    const started = performance.now();
    const input = { ...(await replayInput(lostReplyScenarioFile(cell))), expect: cell.expect };
    const { runs, summary } = await replay(
      input,
      replayOptionsOf({ resultsDir: opts.resultsDir, seed: opts.seed, lock }),
      LOST_REPLY_RUNS,
      opts.shutdown,
      (l) => opts.log(`lost reply ${lock} × ${cell.id}: ${l}`),
    );
    const night = lostReplyNightCell(
      { index: opts.firstIndex + i, lock, cell, seed: opts.seed, wallMs: Math.round(performance.now() - started) },
      runs,
    );
    opts.log(
      `lost reply ${lock} × ${cell.id}: ${rateText(summary.rate, 'as predicted')} — ${night.matched ? 'matched ✓' : 'contradicted ✗'}`,
    );
    cells.push(night);
  }
  return cells;
}
