import type { MarginCell } from '../margin-cell.ts';
import { predicted } from '../oracle-cell.ts';

/**
 * redlock 4 measures a lock's validity on the client's wall clock (`Date.now()`), less its stated drift budget
 * (driftFactor 0.01 × TTL + 2 ms: its strategy's lease, history/lease-terms.ts): the Redlock page's assumption that
 * every process's clock runs at the same rate within 1 %. A holder whose clocks run at r believes its lock for
 * (TTL − drift) / r real while the masters keep the key TTL; run without --watchdog, as its README's `lock()` and
 * `unlock()`. Written before the cells' first run (2026-12-06).
 */
const THRESHOLD =
  'its validity, measured on its own clock, outlasts the keys once the clock runs slower than r = 0.99 (its stated drift budget: 0.01); a section of 0.7 × TTL of its own time outlasts them below r = 0.7';

export const REDLOCK_V4_MARGINS: readonly MarginCell[] = [
  {
    id: 'margin-client-x0.5',
    title: "holder's clocks at 0.5, think 0.7 × TTL",
    faults: ['clock-rate-client'],
    options: { clockRate: 0.5, accounts: 2 },
    thinkTtlFraction: 0.7,
    threshold: `${THRESHOLD}; r = 0.5 is 0.2 below the section's 0.7, 0.49 beyond the stated budget`,
    cell: predicted(
      'lost',
      'at r = 0.5 its section of 0.7 × TTL of its own time lasts 1.4 × TTL real: the keys expire on all five masters at 1 × TTL, another client is granted and reads, and the holder writes at 1.4 × TTL — inside its own validity by its own clock (0.7 of its 0.99 × TTL), after the servers let the key go. A lost update the holder could not have seen by checking `lock.expiration`: the stated assumption failing (r is 0.49 beyond its 0.01), not a bug in the library',
    ),
  },
  {
    id: 'margin-client-x0.99',
    title: "holder's clocks at 0.99, think 0.7 × TTL",
    faults: ['clock-rate-client'],
    options: { clockRate: 0.99, accounts: 2 },
    thinkTtlFraction: 0.7,
    threshold: `${THRESHOLD}; r = 0.99 is inside the stated budget`,
    cell: predicted(
      'safe',
      'at r = 0.99, inside its stated drift budget, its section lasts 0.71 × TTL real and its validity (0.99 × TTL − 2 ms of its own time) 1.0 × TTL real: it writes with 0.29 × TTL to spare and no other client is granted while it is inside. A loss here would be a bug in the library, not the assumption failing',
    ),
  },
];
