import type { LockRow } from '../lock-row.ts';
import { construction, predicted, revised } from '../oracle-cell.ts';
import { NOT_HERE, NO_PAIR, NO_REDIS } from '../common-cells.ts';
import { NO_RETRY_REMEDY, SELF_RENEWING } from '../common-remedy-cells.ts';
import { DYNAMODB_LOCK_CLIENT_MARGINS } from './margins.ts';

/**
 * `--lock=dynamodb-lock-client`: its strategy, its pins, and what the oracle expects of it under each fault and
 * remedy — every cell written before its first run, on the library's code (dynamodb-lock-client.ts says what it does).
 *
 * The client clock faults have no column of the table; they run free (`--nemesis=<fault>`), predicted here too:
 * - clock-strobe, clock-freeze-clients (the clients' wall clocks jump or stand still): **safe**. With
 *   `trustLocalTime` false (its default, and the README's example leaves it) the library reads no clock at all: a
 *   waiter waits the record's leaseDurationMs on a timer, which the wall clock does not move. With `trustLocalTime`
 *   true (not measured) a waiter whose clock is a lease ahead of the stamp the holder's last heartbeat wrote would
 *   wait 0 ms, and its PUT's condition (the guid it just read) would hold against a live holder: a steal per jump.
 *   Measured (`--nemesis=clock-strobe --time-limit=20`, seeds 1672198231, 1220907126, 608790149): VALID 3 of 3, 4 of
 *   4 strobes hit each, 0 lost. `--nemesis=clock-freeze-clients` (seeds 1781601221, 494104070, 2025365225): 0 lost in
 *   3 of 3, VALID twice and once unknown because one client wrote all 174 writes — the long-work cell's starvation
 *   (the library reads no clock), not the fault's doing.
 * - clock-rate-client (the holder's own clocks at --clock-rate): a holder slowed below a rate of 0.3 (heartbeat/lease,
 *   the README's 3 s / 10 s) lets a waiter steal — the margin cells in margins.ts, one each side of 0.3.
 */
export default {
  module: new URL('./dynamodb-lock-client.ts', import.meta.url).href,
  npm: 'dynamodb-lock-client',
  place: { store: 'DynamoDB', from: 'npm' },
  margins: DYNAMODB_LOCK_CLIENT_MARGINS,
  busyAcquireWaits: {
    leases: 2,
    why: 'a waiter waits out the whole lease it read before each of its two tries (retryCount 1, its default), then says "Failed to acquire lock"',
  },
  faults: {
    'no-fault': predicted(
      'safe',
      "conditional PUTs on one DynamoDB item: a waiter takes the record only if the guid and fencingToken it read are unchanged a lease later, and the holder's heartbeat (every 0.3 × TTL) changes the guid",
    ),
    'pause-holder': predicted(
      'lost',
      "a paused holder sends no heartbeat: a waiter that read the record after its last one waits a TTL on its own timer, finds the guid unchanged, takes the lock (token + 1) and writes; on SIGCONT the holder writes too — its next heartbeat then fails and emits 'error', which only logs",
    ),
    'restart-empty': construction('n/a', NO_REDIS),
    clock: construction(
      'n/a',
      "the fault cannot reach it: it jumps the clock of the Redis node(s) holding the lock, and this lock lives in DynamoDB (dynalite), which keeps no time for it — the record stores a lease length, never an expiry; the wait is the waiter's own timer",
    ),
    fencing: predicted(
      'safe',
      "every acquisition writes the token it read + 1 on condition that the record's guid and token are unchanged, so the holder that took over from the paused one has a larger token: the resumed holder's write is refused as stale",
    ),
    'restart-fenced': construction('n/a', NO_REDIS),
    ...NOT_HERE,
  },
  remedies: {
    failover: construction('n/a', NO_PAIR),
    'long-work': revised(
      predicted(
        'safe-may-starve',
        "the holder heartbeats every 0.3 × TTL while its section runs: a waiter's condition fails after each of its waits. And a waiter waits the whole lease it read even when the holder releases meanwhile, while the releasing client's next acquire reads the released record (leaseDurationMs 1) and takes it 1 ms later: the client that held keeps winning",
      ),
      "predicted safe. Measured starved in 3 of 3 runs of the matrix cell (`--lock=dynamodb-lock-client --think=2500 --ttl=1000 --nemesis=none --time-limit=30`, seeds 473524546, 701599975, 1268092515): 0 lost, but one client committed all 12 writes and the other four's 60 acquires all failed (FailedToAcquireLock after their two waits of a lease each), so each run is unknown (no concurrency); at --time-limit=20 (seeds 666036873, 750619503, 184018673) 8–9 writes, unknown (too little progress). Release keeps the record and sets leaseDurationMs to 1; a waiter that read the held record still waits its full lease and then finds a new guid — the releasing client's own next acquire took it 1 ms after release",
    ),
    ...SELF_RENEWING,
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': predicted(
      'lost',
      'everything the holder sends is held past its lease, its heartbeats too: a waiter takes the lock and writes, then the held write arrives — unfenced, nothing refuses it',
    ),
    'delay-write-fenced': predicted(
      'safe',
      "the successor's token is larger: the held write, arriving after it, is refused as stale",
    ),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  findings: {
    package: 'dynamodb-lock-client@0.7.3 `FailOpen` (aws-sdk 2.1693.0 DocumentClient), on dynalite 4.0.0',
    usage:
      "README's usage example, its fail-open client: `new DynamoDBLockClient.FailOpen({ dynamodb, lockTable, partitionKey, heartbeatPeriodMs, leaseDurationMs })` with leaseDurationMs = the run's TTL and heartbeats at the README's ratio (3e3 of 1e4: 0.3 × TTL), `retryCount` and `trustLocalTime` at their defaults (1, false); `acquireLock(id, cb)`, `lock.on('error', …)` as the README, the work, `lock.release(cb)`. Token: `lock.fencingToken`. The table (hash key `id`) is created per run.",
    verdict:
      'heartbeats keep long work safe (but its waiters starve: each waits a whole lease it read, and a client that releases and acquires again wins every time) and a waiter reads no clock; a paused holder writes after a waiter took over — unless the write is fenced with `lock.fencingToken`, which grows with every holder.',
    advice:
      "fence the write with `lock.fencingToken` (a conditional write on it in the data's store): the library hands it out, and it is what stops a paused holder. Listen for `error` on the lock — a failed heartbeat is the only sign the lock is gone, and the README only logs it. Keep `trustLocalTime` false unless every client's clock is trusted: with it, a clock a lease ahead takes a held lock. Expect waiters to starve behind a client that takes the lock again right after releasing it; give `retryCount` room or pause between a release and the next acquire.",
    differs: {
      'long-work':
        "predicted safe; measured starved in 3 of 3 runs (0 lost; one client wrote all 12 writes, the other four's 60 acquires failed): a waiter waits the full lease it read even after a release, and the releasing client re-takes the lock 1 ms after releasing it",
    },
    lockCheck:
      'passed all 10 steps, tokens 1 then 2. Its refusal is slow: it has no acquire timeout, so a busy acquire says no ("Failed to acquire lock") only after waiting out the whole lease it read before each of its two tries — 20 s at the check\'s 10 s lease (the row declares it: `busyAcquireWaits`). With the check\'s usual 2 s budget that step failed, the library still in its first wait. In a run its two waits (2 × TTL) fit the acquire budget (3 × TTL + 1 s)',
  },
  // Its finding is the paused holder and the token that fences it.
  nightly: ['no-fault', 'fencing'],
} as const satisfies LockRow;
