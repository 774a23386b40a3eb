/**
 * Ctrl-C / SIGTERM at any moment: run the registered teardown steps (newest first: stop clients, heal faults,
 * stop nodes, close the journal) once, then exit. npm relays the terminal's SIGINT to us as well, so signals
 * within a short window count as one; a later second signal means "stop waiting" and exits at once (the pid
 * files stay for `fencepost cleanup`).
 */
export const EXIT_INTERRUPTED = 130;

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
  private readonly onSignal = (signal: NodeJS.Signals) => this.handle(signal);
  /** Why the steps ran: a signal, or an error that ended the command. */
  reason: 'signal' | 'error' | null = null;
  /** What a Ctrl-C is said to do; a command with nothing to heal (serve) says so. */
  onInterrupt = 'resuming paused processes, healing faults, stopping nodes (the history so far is kept)';

  install(): this {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
    process.on('SIGHUP', this.onSignal);
    return this;
  }

  uninstall(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    process.off('SIGHUP', this.onSignal);
  }

  /** Register a teardown step, to run on Ctrl-C or error unless the normal path runs or cancels it first. */
  add(name: string, run: Step['run']): TeardownStep {
    const step = { name, run };
    this.steps.push(step);
    const cancel = () => {
      this.steps = this.steps.filter((s) => s !== step);
    };
    return {
      async run() {
        cancel();
        await step.run();
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
    })();
    return this.running;
  }

  private handle(signal: NodeJS.Signals): void {
    const now = Date.now();
    if (this.firstSignalAt) {
      if (now - this.firstSignalAt < 1000) return;
      console.error(`\nfencepost: second ${signal}: exiting without waiting; run \`npm run jepsen -- cleanup\` for leftovers.`);
      process.exit(EXIT_INTERRUPTED);
    }
    this.firstSignalAt = now;
    console.error(`\nfencepost: ${signal} — ${this.onInterrupt} …`);
    void this.runAll('signal').then(() => process.exit(EXIT_INTERRUPTED));
  }
}
