/**
 * How long a `--lock=all` matrix or a nightly has left, for the line each measured cell ends with: from the cells
 * done so far and their mean wall time, shared by the workers that run cells side by side (`--parallel`). A cell's
 * time depends on its lock and fault (a restart, a retried inconclusive run), so this is an estimate that firms up
 * as the night goes, never a promise; the audit's `--lock=all` showed `[11/167]` and nothing about the 25 minutes
 * still to come.
 */

/** Milliseconds still to go: the cells not yet done at the mean time of those done, shared by `parallel` workers. */
export function remainingMs(doneMs: readonly number[], total: number, parallel = 1): number | null {
  if (doneMs.length === 0) return null;
  const left = Math.max(0, total - doneMs.length);
  if (left === 0) return 0;
  const mean = doneMs.reduce((a, b) => a + b, 0) / doneMs.length;
  // Never more workers than cells left: the last cells run one to a worker.
  return (left * mean) / Math.max(1, Math.min(parallel, left));
}

/** `about 25 min left`, `about 1 h 5 min left`, `under a minute left` — rounded up to a whole minute. */
export function leftWords(ms: number): string {
  if (ms < 60_000) return 'under a minute left';
  const min = Math.ceil(ms / 60_000);
  return min < 60 ? `about ${min} min left` : `about ${Math.floor(min / 60)} h ${min % 60} min left`;
}

/** The cells of one matrix or night: `finished` records a cell and gives the note its line ends with. */
export class CellProgress {
  private readonly doneMs: number[] = [];

  constructor(
    private readonly total: number,
    private readonly parallel = 1,
  ) {}

  /** `7/176 done, about 25 min left`; the last cell's note is `176/176 done`. */
  finished(wallMs: number): string {
    this.doneMs.push(wallMs);
    const done = `${this.doneMs.length}/${this.total} done`;
    const ms = remainingMs(this.doneMs, this.total, this.parallel);
    return ms ? `${done}, ${leftWords(ms)}` : done;
  }
}
