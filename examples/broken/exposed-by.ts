import type { FaultName } from 'fencepost';

/**
 * What a broken lock of the gallery is caught by: the script that catches it every time, and the fault and extra CLI
 * options of a free run that exposes it (the detection bench, bench/detection.ts, runs those). Each broken file exports one, so the list of cases and
 * their faults has one owner (the file itself), and the gallery's tests run each broken lock and its `.fixed.ts` twin
 * with exactly these.
 */
export interface ExposedBy {
  /**
   * The scripted scenario of its flaw, a path relative to examples/broken/: run with the broken lock it is INVALID
   * with a lost update, every time (step-gated on the history, never on a clock); with the `.fixed.ts` twin given as
   * `--lock`, VALID (test/integration/broken-gallery-scripted.test.ts). Every case has one: a flaw whose coincidence
   * no step can put in place yet needs the step first (hold-request, clock-freeze-clients and a restart-empty that
   * names a minority were each added for a case of this gallery).
   */
  script: { scenario: string };
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
