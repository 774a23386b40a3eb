/**
 * Ctrl-C / SIGTERM at any moment: run the registered teardown steps (newest first: stop clients, heal faults,
 * stop nodes, close the journal) once, then exit. npm relays the terminal's SIGINT to us as well, so signals
 * within a short window count as one; a later second signal means "stop waiting" and exits at once (the pid
 * files stay for `fencepost cleanup`).
 */
export const EXIT_INTERRUPTED = 130;

type Step = { name: string; run: () => Promise<void> | void };

export class Shutdown {
  private steps: Step[] = [];
  private firstSignalAt = 0;
  private running: Promise<void> | null = null;
  private readonly onSignal = (signal: NodeJS.Signals) => this.handle(signal);

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

  /** Register a teardown step; returns a function that unregisters it (call it once the step ran normally). */
  add(name: string, run: Step['run']): () => void {
    const step = { name, run };
    this.steps.push(step);
    return () => {
      this.steps = this.steps.filter((s) => s !== step);
    };
  }

  /** Run every registered step, newest first; errors are reported and don't stop the rest. */
  runAll(): Promise<void> {
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
    console.error(`\nfencepost: ${signal} — resuming paused processes, healing faults, stopping nodes (the history so far is kept) …`);
    void this.runAll().then(() => process.exit(EXIT_INTERRUPTED));
  }
}
