import type { LibraryFindings as LockFindings, LockRow } from '../locks/lock-row.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';

/**
 * The words of docs/findings.md that are not data: per library (its row's `findings`, locks/<name>/row.ts), what it
 * is and how the row uses it, a one-line verdict, what a user of it should do; and what fencepost found before
 * these rows. The cells themselves come from the oracle and the runs (findings-page.ts).
 */
export type LibraryFindings = Readonly<{ lock: string } & LockFindings>;

/** The libraries with findings, in the registry's order. */
export const FINDINGS_ROWS: readonly LibraryFindings[] = BUILTIN_LOCKS.flatMap((lock) => {
  const row: LockRow = LOCK_ROWS[lock];
  return row.findings ? [{ lock, ...row.findings }] : [];
});

/** What fencepost found before these rows, which a Node developer choosing a lock should know too. */
export const EARLIER_FINDINGS: readonly { title: string; what: string; evidence: string; advice: string }[] = [
  {
    title: 'redlock@5.0.0-beta.2 livelocks after a majority of its masters restart',
    what: "Every attempt of one `acquire` reuses its value, its acquire script refuses a key that exists — its own partial locks included — and it releases them only after its last (11th) attempt. When a majority restarts empty, waiters split the restarted masters' votes and each is refused by its own partial locks for a TTL: the lock is free, every client waits, nobody can take it (the `redlock-npm` row).",
    evidence:
      'the matrix cell `redlock-npm` × Redis restart empty, expected "lost, may livelock" (`npm run jepsen -- --lock=redlock-npm --nemesis=restart-empty --nemesis-interval=500 --think=800 --time-limit=20 --seed=42`: a 7.3 s stall with all 5 clients waiting and no fault active); its remedy cell (`--retry=harness`: one package round per try, our loop between) recovers in every run.',
    advice:
      'use redlock 4.2.0 (`npm install redlock` gives it) or, with the beta, `retryCount: 0` and your own retry loop (mike-marcacci/node-redlock#121, #299).',
  },
  {
    title: "python-etcd3 0.12 crashes on a contended acquire (Debian 12's tenacity)",
    what: '0.12 hands tenacity 8 a two-argument `wait` callback, so every acquire that has to wait dies inside the library ("TypeError: wait() missing 1 required positional argument: \'delay_since_first_attempt\'", kragniz/python-etcd3#2149; fixed on master by #1109, never released). The row records each as an unknown outcome and restarts the client.',
    evidence:
      '`npm run jepsen -- --lock=python-etcd3 --nemesis=none --time-limit=20`: VALID with 409 ok ops and 49 `info` (the crashed acquires).',
    advice: 'pin tenacity below 8 with python-etcd3 0.12, or use another etcd client.',
  },
  {
    title: 'ZooKeeper locks are unavailable for 3–4 TTLs while its leader churns',
    what: "Under elections one after another the clients' sessions and their lock nodes outlived each election, and waiters saw the lock free only after the ensemble had settled.",
    evidence:
      '`npm run jepsen -- --lock=zookeeper --nemesis=leader-churn --pause=8000 --think=1500 --time-limit=30 --seed=11` (TTL 2 s): 0 lost, 3 of 3 shots hit, the lock unavailable for 8.6, 7.5 and 6.2 s during the three churns; etcd under the same churn recovered in 0.5 s (median), 1.5 s at most.',
    advice:
      'budget several session timeouts of unavailability during ZooKeeper elections; it is a liveness cost, not a safety one.',
  },
];
