import { CLI } from './cli-name.ts';
import { EXIT } from './exit-codes.ts';
import { dropOutputWhenReaderCloses } from './closed-output.ts';
/**
 * Ctrl-C / SIGTERM at any moment: run the registered teardown steps (newest first: stop clients, heal faults,
 * stop nodes, close the journal) once, then exit. npm relays the terminal's SIGINT to us as well, so signals
 * within a short window count as one; a later second signal means "stop waiting" and exits at once (the pid
 * files stay for `fencepost cleanup`).
 *
 * The parent going away counts as a signal too: a supervisor or CI runner that kills the process that started
 * us (npm, a wrapper shell) leaves us reparented to init with nobody to stop us, and no signal of ours to see.
 */
export const EXIT_INTERRUPTED = 130;

/** How often the parent pid is checked: a reparented harness notices within this. */
export const PARENT_POLL_MS = 500;

type Step = { name: string; run: () => Promise<void> | void };

/** A registered teardown step: `run` it on the normal path (once, then it's no longer registered), or `cancel`. */
export interface TeardownStep {
  run(): Promise<void>;
  cancel(): void;
}

export class Shutdown {
  private steps: Step[] = [];
  private firstSignalAt = 0;
  private running: Promise<void> | null = null;
  /** Steps the normal path is running right now: an error mid-teardown must wait for them, not exit under them. */
  private readonly inFlight = new Set<Promise<void>>();
  private crashed: Promise<number> | null = null;
  /** The first error that nothing caught (set by `crash`): the command's exit code is then 255, whatever it returned. */
  stray: { error: unknown } | null = null;
  private readonly onSignal = (signal: NodeJS.Signals) => this.handle(signal);
  private parentWatch: NodeJS.Timeout | null = null;
  /** Why the steps ran: a signal, or an error that ended the command. */
  reason: 'signal' | 'error' | null = null;
  /** What a Ctrl-C is said to do; a command with nothing to heal (serve) says so. */
  onInterrupt = 'resuming paused processes, healing faults, stopping nodes (the history so far is kept)';

  install(): this {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
    process.on('SIGHUP', this.onSignal);
    this.watchParent();
    return this;
  }

  /** The parent changes only when it died (we are adopted by init or a subreaper): shut down as on SIGTERM. */
  private watchParent(): void {
    const parent = process.ppid;
    this.parentWatch = setInterval(() => {
      if (process.ppid === parent) return;
      this.stopWatchingParent();
      // Whoever read our output may be gone with the parent: a write to a closed pipe must not crash the teardown.
      dropOutputWhenReaderCloses();
      this.handle(`parent process ${parent} is gone`);
    }, PARENT_POLL_MS);
    // Never what keeps the process alive: a finished command exits as before.
    this.parentWatch.unref();
  }

  private stopWatchingParent(): void {
    if (this.parentWatch) clearInterval(this.parentWatch);
    this.parentWatch = null;
  }

  uninstall(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    process.off('SIGHUP', this.onSignal);
    this.stopWatchingParent();
  }

  /** Register a teardown step, to run on Ctrl-C or error unless the normal path runs or cancels it first. */
  add(name: string, run: Step['run']): TeardownStep {
    const step = { name, run };
    this.steps.push(step);
    const cancel = () => {
      this.steps = this.steps.filter((s) => s !== step);
    };
    const inFlight = this.inFlight;
    return {
      async run() {
        cancel();
        const running = Promise.resolve().then(step.run);
        inFlight.add(running);
        try {
          await running;
        } finally {
          inFlight.delete(running);
        }
      },
      cancel,
    };
  }

  /** Run every registered step, newest first; errors are reported and don't stop the rest. */
  runAll(reason: 'signal' | 'error' = 'error'): Promise<void> {
    this.reason ??= reason;
    this.running ??= (async () => {
      for (const step of [...this.steps].reverse()) {
        try {
          await step.run();
        } catch (err) {
          console.error(`fencepost: teardown step "${step.name}" failed: ${(err as Error).message}`);
        }
      }
      this.steps = [];
      await Promise.allSettled([...this.inFlight]);
    })();
    return this.running;
  }

  /**
   * Route every error nothing caught — a throw in an event handler (an IPC message, a stream), a rejection nobody
   * awaited — to `crash`, then exit with its code. Without this Node exits 1, the INVALID code, and skips every
   * teardown step: paused clients stay stopped and the servers keep running with the run's passwords.
   */
  catchStrays(exit: (code: number) => void = (code) => process.exit(code)): this {
    const onStray = (err: unknown) => void this.crash(err).then(exit);
    process.on('uncaughtException', onStray);
    process.on('unhandledRejection', onStray);
    return this;
  }

  /**
   * An unexpected error: say what it was, run every step (heal the faults, stop the clients and servers, close the
   * history — it is kept), and resolve with 255. A second error while that runs is reported and waits for the same.
   */
  crash(err: unknown): Promise<number> {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    if (this.crashed) {
      if (err !== this.stray?.error) console.error(`fencepost: another unexpected error while stopping: ${text}`);
      return this.crashed;
    }
    this.stray = { error: err };
    console.error(`fencepost: the harness crashed (this is a bug of ours): ${text}`);
    console.error(`fencepost: ${this.onInterrupt} …`);
    this.crashed = this.runAll('error').then(() => {
      console.error(`fencepost: exiting ${EXIT.crashed}; if anything of the run is left, \`${CLI} cleanup\` stops it.`);
      return EXIT.crashed;
    });
    return this.crashed;
  }

  /** `cause`: the signal's name, or what else ended the command (the parent's death). */
  private handle(cause: string): void {
    const now = Date.now();
    if (this.firstSignalAt) {
      if (now - this.firstSignalAt < 1000) return;
      console.error(`\nfencepost: second ${cause}: exiting without waiting; run \`${CLI} cleanup\` for leftovers.`);
      process.exit(EXIT_INTERRUPTED);
    }
    this.firstSignalAt = now;
    console.error(`\nfencepost: ${cause} — ${this.onInterrupt} …`);
    void this.runAll('signal').then(() => process.exit(EXIT_INTERRUPTED));
  }
}
