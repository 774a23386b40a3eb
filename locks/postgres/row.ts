import type { LockRow } from '../lock-row.ts';
import { construction, measured } from '../oracle-cell.ts';
import { NO_MASTERS, NO_PAIR, NO_REDIS, NO_WATCHDOG } from '../common-cells.ts';
import { NO_RETRY_REMEDY } from '../common-remedy-cells.ts';

/** `--lock=postgres`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./postgres.ts', import.meta.url).href,
  noLease: "its lock is the row's version column, checked at the write: nothing expires",
  place: { store: 'Postgres', from: 'fencepost' },
  // Row + version: the resource itself refuses stale writes, whatever happens to the clients or clocks.
  faults: {
    'no-fault': measured('safe'),
    'pause-holder': measured('safe'),
    'restart-empty': construction('n/a', NO_REDIS),
    clock: measured('safe'),
    fencing: construction(
      'safe',
      'it is its own fence: the version column is the token, so the fenced run is the holder-paused run again',
    ),
    'restart-fenced': construction('n/a', NO_REDIS),
    'pause-master': construction('n/a', NO_MASTERS),
    'kill-session': construction('n/a', 'no lock session to kill: the row + version takes no lock'),
  },
  // Row + version: the write itself is the compare-and-set, so nothing that delays or outlives a lease matters.
  remedies: {
    failover: construction('n/a', NO_PAIR),
    // Measured, not decided: no lease exists for long work to outlive, and under a 2.5 s think one client often wins
    // every round (it re-reads first after its own commit, so it also writes first; the others' writes are refused
    // as stale) — a run like that has no second writer for a VALID. Whether it starves is chance, run by run (seed
    // 201: the first run starved, the second had two writers), so the cell expects no lost update and shows the
    // starvation when every run starved: both decide it the same way; a lost update contradicts it.
    'long-work': measured('safe-may-starve'),
    'long-work-watchdog': construction('refuse', NO_WATCHDOG),
    'pause-watchdog': construction('refuse', NO_WATCHDOG),
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': measured('safe'),
    'delay-write-fenced': construction(
      'safe',
      'it is its own fence: the version column is the token, so the fenced run is the delayed-write run again',
    ),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  nightly: 'every-cell',
  bench: { overhead: { floor: 'postgres', timed: 'write' } },
} as const satisfies LockRow;
