import type { FaultName } from 'fencepost';

/**
 * What a broken lock of the gallery is caught by: the script that catches it every time (or why none can), and the
 * fault and extra CLI options of a free run that exposes it. Each broken file exports one, so the list of cases and
 * their faults has one owner (the file itself), and the gallery's tests run each broken lock and its `.fixed.ts` twin
 * with exactly these.
 */
export interface ExposedBy {
  /**
   * The scripted scenario of its flaw, a path relative to examples/broken/: run with the broken lock it is INVALID
   * with a lost update, every time (step-gated on the history, never on a clock); with the `.fixed.ts` twin given as
   * `--lock`, VALID (test/integration/broken-gallery-scripted.test.ts). Or, when no step can put the defect's
   * coincidence in place, `cannot` says why, and the case stays a free run under `nemesis` and `args`
   * (test/integration/broken-gallery.test.ts, which waits for the defect to show by chance).
   */
  script: { scenario: string } | { cannot: string };
  /** `--nemesis=` value: one fault, or `none` when contention alone exposes the defect. */
  nemesis: FaultName | 'none';
  /** Further options, as on the command line (e.g. `--watchdog`, `--ttl=300`). */
  args: string[];
  /**
   * Set when contention alone also shows the defect, now and then, with why: a run that ends at its first lost
   * update may then end before the fault ever fired, its loss under no fault — caught all the same.
   */
  alsoByContention?: string;
}
