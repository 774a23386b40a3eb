import type { MarginCell } from '../margin-cell.ts';
import { predicted } from '../oracle-cell.ts';

/**
 * fencepost's `redis` recipe with `--watchdog` renews every TTL/3 of the client's time (workloads/lease-watchdog.ts);
 * a Redis whose wall clock runs at r expires its key TTL/r real after each renewal, so the renewal comes after the key
 * is gone above r = 3 (research anchors §1.5). The watchdog skips the write once a renewal fails, so a loss needs the
 * holder's write between the key's expiry and the first renewal: the lost side's section sits in that window. Written
 * before the cells' first run (2026-12-06).
 */
const THRESHOLD = "a renewal every TTL/3 comes after the key expired once the server's clock runs faster than r = 3";

export const REDIS_MARGINS: readonly MarginCell[] = [
  {
    id: 'margin-server-x2-watchdog',
    title: 'Redis clock at 2×, --watchdog, think 0.7 × TTL',
    faults: ['clock-rate'],
    options: { clockRate: 2, watchdog: true, accounts: 2 },
    thinkTtlFraction: 0.7,
    threshold: `${THRESHOLD}; r = 2 is 1 below it`,
    cell: predicted(
      'safe',
      "at r = 2 the key lives TTL/2 real after each renewal and a renewal comes every TTL/3 real: each lands while the key lives. The section (0.7 × TTL) outlasts the key's unrenewed TTL/2, so it is the renewals that keep it: no other client is granted while the holder is inside",
    ),
  },
  {
    id: 'margin-server-x4-watchdog',
    title: 'Redis clock at 4×, --watchdog, think 0.3 × TTL',
    faults: ['clock-rate'],
    options: { clockRate: 4, watchdog: true, accounts: 2 },
    thinkTtlFraction: 0.3,
    threshold: `${THRESHOLD}; r = 4 is 1 above it`,
    cell: predicted(
      'lost',
      "at r = 4 the key lives TTL/4 real and the first renewal is due at TTL/3: the key expires 0.25 × TTL into the section, another client (polling every 5–25 ms) is granted and reads, and the holder's write at 0.3 × TTL goes out before its renewal (0.33 × TTL) could fail and tell it the lease is gone — a lost update. A section longer than TTL/3 would be saved by the failed renewal (the watchdog skips the write)",
    ),
  },
];
