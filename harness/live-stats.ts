import type { WriteValue } from '../history/bank.ts';
import type { Op } from '../history/op.ts';
import { isStaleWriteRefusal } from '../history/stale-write.ts';
import { LiveLostUpdates } from './live-lost-updates.ts';
import type { StatusLine } from './status-line.ts';

/**
 * The progress line: elapsed, ops/s, ok/fail/info and the lost updates so far, counted live by the lost-updates
 * checker's rule (live-lost-updates.ts), so the last progress line and the summary agree; the checkers decide after
 * the run, from the ledger. `lostUpdate` settles at the first one (what --stop-on-lost-update waits for).
 */
export class LiveStats {
  private started = performance.now();
  private counts = { ok: 0, fail: 0, info: 0 };
  private readonly lost = new LiveLostUpdates();
  private found: ((at: { account: number; writeId: number; missed: number; atS: number }) => void) | null = null;
  /** Settles when the first lost update shows: which write missed which, and when (s since the stats began). */
  readonly lostUpdate = new Promise<{ account: number; writeId: number; missed: number; atS: number }>(
    (resolve) => (this.found = resolve),
  );
  staleRejected = 0;

  get lostSoFar(): number {
    return this.lost.count;
  }

  /**
   * `log` gets a line per print; a terminal's `status` line is redrawn in place instead (a person watching the run:
   * the run's sentences scroll above it). A caller that silences its log (a test, a matrix cell) passes no status
   * and silences the progress too.
   */
  constructor(
    private readonly timeLimitS: number,
    private readonly log: (line: string) => void,
    private readonly status: StatusLine | null = null,
  ) {}

  /** Whether the progress is a line redrawn in a terminal (often) rather than lines in a log (every 10 s). */
  get tty(): boolean {
    return this.status !== null;
  }

  /** The clients start now: elapsed time (the progress line's, a lost update's `atS`) counts from here. */
  begin(): void {
    this.started = performance.now();
  }

  observe(op: Op): void {
    if (op.type === 'invoke' || op.process === 'nemesis') return;
    this.counts[op.type as 'ok' | 'fail' | 'info']++;
    if (op.f !== 'write') return;
    const w = op.value as WriteValue;
    if (isStaleWriteRefusal(op)) this.staleRejected++;
    if (op.type === 'ok' && w.writeId !== undefined && this.lost.committed(w.account, w.writeId, w.basedOn))
      this.found?.({ ...this.lost.first!, atS: (performance.now() - this.started) / 1000 });
  }

  print(final = false): void {
    const s = Math.min((performance.now() - this.started) / 1000, this.timeLimitS);
    const total = this.counts.ok + this.counts.fail + this.counts.info;
    const line = `  ${s.toFixed(0).padStart(3)}/${this.timeLimitS} s  ${(total / Math.max(s, 0.001)).toFixed(0).padStart(5)} ops/s  ok ${this.counts.ok}  fail ${this.counts.fail}  info ${this.counts.info}  lost updates so far ${this.lostSoFar}${this.staleRejected ? `  stale writes rejected ${this.staleRejected}` : ''}`;
    if (!this.status) return this.log(line);
    this.status.show(line);
    if (final) this.status.end();
  }
}
