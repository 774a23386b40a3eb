import type { WriteValue } from '../history/bank.ts';
import type { Op } from '../history/op.ts';
import { isStaleWriteRefusal } from '../checkers/fencing-order.ts';

/**
 * The progress line: elapsed, ops/s, ok/fail/info and anomalies seen so far. The anomaly count is a live
 * estimate — a committed write based on an older write than the last committed one on its account erased
 * something — the checkers decide after the run.
 */
export class LiveStats {
  private readonly started = performance.now();
  private counts = { ok: 0, fail: 0, info: 0 };
  private lastWrite = new Map<number, number>();
  anomalies = 0;
  staleRejected = 0;

  /**
   * `log` gets a line per print; `tty` redraws one line in place instead (a terminal watching the run). A caller
   * that silences its log (a test, a matrix cell) silences the progress too.
   */
  constructor(
    private readonly timeLimitS: number,
    private readonly log: (line: string) => void,
    readonly tty = false,
  ) {}

  observe(op: Op): void {
    if (op.type === 'invoke' || op.process === 'nemesis') return;
    this.counts[op.type as 'ok' | 'fail' | 'info']++;
    if (op.f !== 'write') return;
    const w = op.value as WriteValue;
    if (isStaleWriteRefusal(op)) this.staleRejected++;
    if (op.type === 'ok' && w.writeId !== undefined) {
      const last = this.lastWrite.get(w.account) ?? 0;
      if (w.basedOn < last) this.anomalies++;
      this.lastWrite.set(w.account, Math.max(last, w.writeId));
    }
  }

  print(final = false): void {
    const s = Math.min((performance.now() - this.started) / 1000, this.timeLimitS);
    const total = this.counts.ok + this.counts.fail + this.counts.info;
    const line = `  ${s.toFixed(0).padStart(3)}/${this.timeLimitS} s  ${(total / Math.max(s, 0.001)).toFixed(0).padStart(5)} ops/s  ok ${this.counts.ok}  fail ${this.counts.fail}  info ${this.counts.info}  anomalies so far ${this.anomalies}${this.staleRejected ? `  stale writes rejected ${this.staleRejected}` : ''}`;
    if (this.tty) process.stderr.write(`\r${line}${final ? '\n' : ''}`);
    else this.log(line);
  }
}
