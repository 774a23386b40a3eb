import type { Journal } from '../history/journal.ts';

/**
 * A test hook (harness/crash.servers.test.ts): `FENCEPOST_TEST_THROW=<phase>` throws from an event-loop callback
 * at that phase — outside every promise chain, as a throw in an IPC or stream handler would — so the test can show
 * that the process-level handler still heals, stops everything and exits 255. Unset, it does nothing.
 */
export function injectStrayThrow(phase: 'setup' | 'mid-run' | 'teardown', journal?: Journal): void {
  if (process.env.FENCEPOST_TEST_THROW !== phase) return;
  const strayThrow = () =>
    setTimeout(() => {
      throw new Error(`FENCEPOST_TEST_THROW: injected throw (${phase})`);
    }, 0);
  // Mid-run: once the journal holds a completed op (the history has something to keep) — on a busy machine the
  // clients may take seconds to begin; elsewhere at once, while the phase's work is in flight.
  if (!journal) return void strayThrow();
  const unsubscribe = journal.onOp((op) => {
    if (op.type !== 'ok') return;
    unsubscribe();
    strayThrow();
  });
}
