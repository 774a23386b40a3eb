import type { LockRow } from '../lock-row.ts';
import { construction, predicted, revised } from '../oracle-cell.ts';
import { NOT_HERE, NO_PAIR, NO_REDIS } from '../common-cells.ts';
import { NO_RETRY_REMEDY, SELF_RENEWING } from '../common-remedy-cells.ts';

/**
 * `--lock=k8s-lease`: client-go's leader election emulated over etcd (k8s-lease.ts), and what the oracle expects of it
 * under each fault and remedy — every cell written before its first run (2026-12-06).
 *
 * The clients' clock faults are free runs, not columns; written here before they ran, per anchors-2026-12-05 §1.5:
 * - clock-strobe: refused — it moves the lock servers' clocks too, and etcd's cannot be moved (a Go binary);
 * - clock-rate-client: refused — its story is a late --watchdog renewal and this row renews itself. So the rate §1.5
 *   predicts client-go to break at (a candidate's clock faster than LeaseDuration/RenewDeadline = 1.5 × the holder's)
 *   has no fault that reaches it here yet;
 * - clock-freeze-clients (every client's wall clock stands still for 1.5 × TTL): safe. No wall time is compared:
 *   observedTime is each elector's monotonic clock, and the frozen renewTime still changes the record whenever its
 *   holder or transitions change. Only a single term longer than LeaseDuration under the freeze would look unrenewed
 *   (its renewals rewrite the same bytes) — this workload's sections are far shorter.
 * Measured 2026-12-06 (`--time-limit=20`): both refusals confirmed by the CLI (exit 254, nothing started);
 * clock-freeze-clients VALID in 3 of 3 runs, every freeze a hit (4 of 4 each; seeds 2090167042, 1311634913, 750879787).
 */

const PAUSED_LEADER =
  'client-go: "This implementation does not guarantee that only one client is acting as a leader (a.k.a. fencing)". The holder is stopped 1.5 × TTL inside its section: no renewal changes the record, a candidate sees it unchanged for LeaseDuration on its own clock and takes it (transitions + 1), and writes. On SIGCONT the holder\'s leading context is still open — its renew loop starts a fresh round and stops leading only when that round has failed for RenewDeadline — so its section\'s write goes out, computed from its old read';

/** Where the row's own release can break a successor's lease: ReleaseOnCancel trusts the last observation. */
const RELEASE_ON_STALE_OBSERVATION = {
  expect: 'may-break',
  reason:
    "client-go's tryRelease decides by IsLeader — the elector's last observation — not by the record it has just read, and writes the empty holder over that record's version: a holder that releases before its renew loop has read its successor's record frees the successor's lease, and a third client takes it at once",
} as const;

const TRANSITIONS_FENCE =
  "leaderTransitions grows by one on every change of holder, each written by a compare-and-swap on the mod revision its writer read: the successor's token is larger, and the resource refuses the resumed holder's write as stale";

export default {
  module: new URL('./k8s-lease.ts', import.meta.url).href,
  targetKey: (ns, a) => `${ns}k8s-lease/${a}`,
  place: { store: 'etcd', from: 'fencepost' },
  faults: {
    'no-fault': predicted(
      'safe',
      "one record per account, written only by a compare-and-swap on the mod revision its writer read; a candidate takes a held record only after LeaseDuration (the TTL) of its own clock without a change, and the holder changes it every RetryPeriod (TTL/7.5) while it leads; a release writes the empty holder, which one candidate's compare-and-swap wins",
    ),
    'pause-holder': { ...predicted('lost', PAUSED_LEADER), promise: RELEASE_ON_STALE_OBSERVATION },
    'restart-empty': construction('n/a', NO_REDIS),
    clock: construction(
      'n/a',
      "the fault cannot reach it: it jumps the lock servers' clocks, and the LD_PRELOAD shim cannot move a Go binary (etcd) — nor does any server time enter this lease: LeaseDuration is counted on each candidate's own monotonic clock. The clients' clock faults are free runs (row.ts says which apply)",
    ),
    fencing: revised(
      {
        ...predicted(
          'may-lose',
          `${TRANSITIONS_FENCE}: no lost update. But the run is INVALID whenever the lock breaks its promise — a holder's blind release (ReleaseOnCancel) frees its successor's lease, and the two go on freeing each other's — which happens in some runs and not others`,
        ),
        promise: RELEASE_ON_STALE_OBSERVATION,
      },
      "predicted safe (the token fences the resumed holder). Measured: no lost update in 3 of 3 runs (`--lock=k8s-lease --nemesis=pause-holder --fencing --time-limit=20`), the stale writes refused (4, 16, 3) — but seeds 604425095 and 752350550 were INVALID by the promise checker (1 and 11 broken promises): once a resumed holder's release had emptied its successor's record, p0 and p4 were each granted account 0 inside the other's lease every ~80 ms (17.218 s, 17.297 s, 17.344 s…), each release written by an elector that had last seen itself holding. Seed 1996105157 was VALID. The fence kept the data; the lock did not keep its promise, so the cell expects 'may lose'",
    ),
    'restart-fenced': construction('n/a', NO_REDIS),
    ...NOT_HERE,
  },
  remedies: {
    failover: construction('n/a', NO_PAIR),
    'long-work': predicted(
      'safe',
      'the holder renews every RetryPeriod while its 2.5 s section runs, so the record changes every TTL/7.5 and no candidate sees it unchanged for LeaseDuration',
    ),
    ...SELF_RENEWING,
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': {
      ...predicted(
        'lost',
        "everything the holder sends is held, its renewals too: the record stops changing, a candidate takes it after LeaseDuration and writes; the holder's write had left while it still led, and arrives after — no token to refuse it",
      ),
      promise: RELEASE_ON_STALE_OBSERVATION,
    },
    'delay-write-fenced': revised(
      {
        ...predicted(
          'may-lose',
          `${TRANSITIONS_FENCE} when the held write arrives: no lost update — but the run is INVALID whenever the lock breaks its promise (its blind release, as in the fenced paused-holder cell), which happens in some runs and not others`,
        ),
        promise: RELEASE_ON_STALE_OBSERVATION,
      },
      "predicted safe. Measured: no lost update in 3 of 3 runs (`--lock=k8s-lease --nemesis=delay-write --fencing --time-limit=20`), the held writes refused (4, 3, 16); seeds 1459507163 and 541315052 VALID, seed 129250260 INVALID by the promise checker (13 broken promises: p0 and p2 granted account 0 inside each other's lease from 16.130 s on) — the fenced paused-holder cell's cascade",
    ),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  findings: {
    package:
      "k8s-lease: an emulation of client-go's leader election algorithm, not the Kubernetes API server (client-go 32ce75a7 tools/leaderelection, on etcd3@1.1.2)",
    usage:
      "client-go's LeaderElector per account with ReleaseOnCancel, its defaults scaled to the TTL (LeaseDuration = TTL, RenewDeadline = ⅔ TTL, RetryPeriod = TTL/7.5); the Lease is a JSON record in etcd whose compare-and-swap is the key's mod revision (the API server's resourceVersion); the section runs while OnStartedLeading's context is open; the token is leaderTransitions.",
    verdict:
      "safe without faults and renewed by itself; a paused leader goes on leading after its successor took over, as client-go warns, and its release (ReleaseOnCancel) is blind: it can free the successor's lease, and two holders then free each other's in turn. leaderTransitions fences the writes, not the double grants.",
    advice:
      "pass leaderTransitions (the Lease's spec.leaseTransitions) with every write the leader makes and have the resource refuse a smaller one — client-go gives no fencing itself. Stop work when OnStartedLeading's context ends. ReleaseOnCancel writes the empty holder after checking only what the elector last saw, not the record it read: leave it off where a leader can be paused (a successor then waits LeaseDuration), or keep leader terms long.",
    lockCheck: 'passed, all 10 steps (token = leaderTransitions: 0, then 1 for the next holder)',
  },
  // The paused leader that goes on leading is its finding.
  nightly: ['no-fault', 'pause-holder'],
} as const satisfies LockRow;
