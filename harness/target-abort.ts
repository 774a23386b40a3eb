import type { Journal } from '../history/journal.ts';
import type { CommandLog } from '../target/command-log.ts';
import { healthPlan, probeHealth } from '../target/health-probe.ts';
import type { AbortConditions, HealthProbe } from '../target/target-spec.ts';

/** The window the error rate is taken over, and the fewest client completions in it that can show a rate. */
export const ERROR_WINDOW_MS = 10_000;
export const ERROR_RATE_MIN_OPS = 20;

/**
 * The error rate over a sliding window of client completions: the share that ended unknown (`info`: a timeout, a
 * dropped connection), the sign that the target is in trouble rather than the lock refusing (`fail` is a lock saying
 * no, which is normal). Pure over the times it is fed (ms), so its rule is tested on literal sequences.
 */
export class ErrorRate {
  private readonly seen: { at: number; unknown: boolean }[] = [];

  add(at: number, unknown: boolean): void {
    this.seen.push({ at, unknown });
  }

  /** The share of unknown completions in the window ending at `now`, or null with too few to tell. */
  rate(now: number): number | null {
    while (this.seen.length && this.seen[0].at < now - ERROR_WINDOW_MS) this.seen.shift();
    if (this.seen.length < ERROR_RATE_MIN_OPS) return null;
    return this.seen.filter((s) => s.unknown).length / this.seen.length;
  }
}

/**
 * The target's abort conditions, watched while the clients run: its health probe failing `failures` times in a row,
 * the clients' error rate above `maxErrorRate`, or the run outliving `maxMinutes`. `aborted` settles with the reason
 * at the first; the run then stops as at its time limit — clients stop, every fault heals — and its verdict is
 * unknown with that reason (a run cut short to do no harm is no evidence of safety).
 */
export class TargetAbort {
  readonly aborted: Promise<string>;
  private settle!: (reason: string) => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly abort: AbortConditions,
    private readonly health: HealthProbe | null,
    private readonly log: (line: string) => void,
    /** Where each execution of the health probe is logged, with every other command the run executes. */
    private readonly commands: CommandLog,
  ) {
    this.aborted = new Promise((resolve) => (this.settle = resolve));
  }

  /** Also ends the run once `check` says why (a reason), looked at every `everyMs` until the run stops. */
  watch(check: () => string | null, everyMs: number): void {
    const t = setInterval(() => {
      const reason = check();
      if (reason) this.fire(reason);
    }, everyMs);
    t.unref();
    this.timers.push(t);
  }

  private fire(reason: string): void {
    if (this.stopped) return;
    this.log(`fencepost: ABORT: ${reason}; healing every fault and stopping the clients`);
    this.stop();
    this.settle(reason);
  }

  start(journal: Journal): void {
    const { maxErrorRate, maxMinutes } = this.abort;
    this.timers.push(
      setTimeout(
        () => this.fire(`the run reached the target's time bound (abort.maxMinutes: ${maxMinutes})`),
        maxMinutes * 60_000,
      ),
    );
    if (maxErrorRate !== null) {
      const rate = new ErrorRate();
      this.unsubscribe = journal.onOp((op) => {
        if (typeof op.process !== 'number' || op.type === 'invoke') return;
        rate.add(performance.now(), op.type === 'info');
        const r = rate.rate(performance.now());
        if (r !== null && r > maxErrorRate)
          this.fire(
            `${Math.round(r * 100)} % of the clients' operations ended unknown over ${ERROR_WINDOW_MS / 1000} s (abort.maxErrorRate: ${maxErrorRate})`,
          );
      });
    }
    if (this.health) this.probe(this.health, 0);
  }

  private probe(h: HealthProbe, failures: number): void {
    const t = setTimeout(async () => {
      const r = await probeHealth(h, this.commands);
      if (this.stopped) return;
      const failed = r.ok ? 0 : failures + 1;
      if (failed >= h.failures)
        return this.fire(
          `the health probe (${healthPlan(h).command}) failed ${failed} time${failed > 1 ? 's' : ''} in a row (last: ${r.said})`,
        );
      this.probe(h, failed);
    }, h.intervalMs);
    this.timers.push(t);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.unsubscribe?.();
  }
}
