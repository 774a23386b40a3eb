import type { MarginCell } from '../margin-cell.ts';
import { predicted } from '../oracle-cell.ts';

/**
 * redis-semaphore's refresh is `setInterval(refresh, 0.8 × lockTimeout)` on the holder's own timers (research
 * anchors §1.4), so a holder whose clocks run at r refreshes every 0.8 × TTL / r real: late, past the key's TTL,
 * below r = 0.8. Written before the cells' first run (2026-12-06).
 */
const THRESHOLD = 'its refresh every 0.8 × TTL of its own clock comes after the key expired below r = 0.8';

export const REDIS_SEMAPHORE_MARGINS: readonly MarginCell[] = [
  {
    id: 'margin-client-x0.6',
    title: "holder's clocks at 0.6, think 0.7 × TTL",
    faults: ['clock-rate-client'],
    options: { clockRate: 0.6, accounts: 2 },
    thinkTtlFraction: 0.7,
    threshold: `${THRESHOLD}; r = 0.6 is 0.2 below it`,
    cell: {
      ...predicted(
        'lost',
        "at r = 0.6 its section (0.7 × TTL of its own time) lasts 1.17 × TTL real and its refresh, due at 0.8 × TTL of its own time, comes at 1.33 × TTL real: the key expires at 1 × TTL before either. Another client is granted and reads, the holder writes, and only then does the overdue refresh find the key gone (the default onLockLost throws: the library's crash, after the write) — a lost update. The refresh itself cannot be seen (the library renews outside the history), so the story's late-renewal step is judged by the other client's grant inside the holder's section",
      ),
      revised:
        'lost, as predicted, but without the crash the prediction also named: in 5 runs of 20 s (seeds 1–5, 2026-12-06) 14 lost updates and no LostLockError — the holder releases right after its write, which stops the refresh timer before the overdue refresh is due (1.33 × TTL real), so onLockLost is never called',
    },
  },
  {
    id: 'margin-client-x0.95',
    title: "holder's clocks at 0.95, think 1.2 × TTL",
    faults: ['clock-rate-client'],
    options: { clockRate: 0.95, accounts: 2 },
    thinkTtlFraction: 1.2,
    threshold: `${THRESHOLD}; r = 0.95 is 0.15 above it`,
    cell: predicted(
      'safe',
      'at r = 0.95 its refresh comes every 0.84 × TTL real, inside the TTL each time: a section of 1.2 × TTL of its own time (1.26 × TTL real), longer than the key would live unrefreshed, keeps its key throughout, and no other client is granted it while the holder is inside. (A section this long at r = 0.6 would not lose an update: the refresh at 1.33 × TTL real fails before the write and onLockLost ends the process — so the lost side has the shorter section)',
    ),
  },
];
