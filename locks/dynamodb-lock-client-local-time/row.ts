import type { LockRow } from '../lock-row.ts';
import { predicted } from '../oracle-cell.ts';
import dynamodbLockClient from '../dynamodb-lock-client/row.ts';

/**
 * `--lock=dynamodb-lock-client-local-time`: the same library, pins and cells as `dynamodb-lock-client`, with
 * `trustLocalTime: true`. Every table column keeps the clients' clocks in step, where trusting them changes how long
 * a waiter waits (what is left of the lease since the holder's last stamp, not a whole lease) but not who may write:
 * the cells are the row's own, except long work, whose starvation the shorter wait changes. Written before its first
 * run (2026-12-06).
 *
 * Its finding is off the table, a free run of a client clock fault:
 * - clock-strobe (every client's wall clock flips between +offset and real time every TTL/4): predicted **lost**. A
 *   waiter whose clock is at +offset when it reads a stamp its holder wrote at real time computes a wait of 0 (the
 *   offset is far more than a lease), PUTs at once on condition the guid it just read is unchanged — true, the holder's
 *   next heartbeat is up to 0.3 × TTL away — and takes a live lock; the holder writes when its section ends.
 *   **Measured otherwise** (`--nemesis=clock-strobe --time-limit=20`, seeds 11, 12, 13, 2026-12-06): VALID 3 of 3, 0
 *   lost, 0 overlaps, 4 strobes each (offset 60 s) — and in 2 of the 3 the lock stopped: account 0 free yet untaken for
 *   the rest of the run (8.3 s with 5 waiting, 14.0 s with 10 waiting). The other side of the same arithmetic: a waiter
 *   at real time that reads a stamp written at +60 s waits lease + 60 s. The steal needs a waiter to read in the ≤ 0.3
 *   × TTL between a flip forward and the holder's next stamp; no run caught one. So the finding is a stall, and the
 *   steal stays a prediction the runs did not show.
 */
export default {
  ...dynamodbLockClient,
  module: new URL('./dynamodb-lock-client-local-time.ts', import.meta.url).href,
  margins: undefined,
  remedies: {
    ...dynamodbLockClient.remedies,
    'long-work': predicted(
      'safe',
      "the holder heartbeats every 0.3 × TTL, each a new guid and a new stamp: a waiter's condition fails after each of its waits, as without the option. A release stamps the record with leaseDurationMs 1, so a waiter that reads it after the release waits 0 ms (the row without the option waits a whole lease and starves): the waiters get their turn",
    ),
  },
  findings: {
    package: dynamodbLockClient.findings.package,
    usage:
      "as the row without the option (the README's FailOpen client, lease = TTL, heartbeats 0.3 × TTL), with `trustLocalTime: true`, the README's documented option for a waiter to wait only what is left of the lease by its own clock.",
    verdict:
      "with the clients' clocks in step it behaves as without the option, and its waiters no longer starve (a release's stamp lets a waiter in at once). Under clock jumps (clock-strobe, 60 s, 3 runs) nothing was lost, but in 2 runs the lock stopped for the rest of the run: a waiter whose clock is behind the stamp it read waits the lease plus the difference. The steal the arithmetic allows (a waiter a lease ahead waits 0) was not caught.",
    advice:
      "leave `trustLocalTime` false (its default) unless every client's clock is kept within a small part of the lease of the others': the option makes the lock's safety and its liveness the clocks' agreement — a clock behind by minutes keeps every waiter out for minutes. Fence the write with `lock.fencingToken` either way.",
    differs: {},
  },
  nightly: ['no-fault'],
} as const satisfies LockRow;
