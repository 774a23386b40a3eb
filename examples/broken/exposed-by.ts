import type { FaultName } from 'fencepost';

/**
 * What a broken lock of the gallery is caught by: the fault and the extra CLI options of the run that exposes
 * it. Each broken file exports one, so the list of cases and their faults has one owner (the file itself), and
 * the gallery's test runs each broken lock and its `.fixed.ts` twin with exactly these arguments.
 */
export interface ExposedBy {
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
