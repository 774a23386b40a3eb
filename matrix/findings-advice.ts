/**
 * The words of docs/findings.md that are not data: per library, what it is and how the row uses it, a one-line
 * verdict, what a user of it should do, and — where a measurement contradicted the oracle's prediction — what was
 * measured instead and why it differs. The cells themselves come from the oracle and the runs (findings-page.ts).
 */
export interface LibraryFindings {
  lock: string;
  /** The package and version the row pins (locks/<row>/npm/package.json). */
  package: string;
  /** How the row uses it: its README's example, its defaults, the client. */
  usage: string;
  /** In one line, for the table at the top. */
  verdict: string;
  advice: string;
  /** What `npm run jepsen -- lock-check <row>` said (the contract: acquire, a busy lock refused, hand-over, …). */
  lockCheck?: string;
  /** By column id: the measurement that contradicted the prediction, and why (the measurement wins). */
  differs?: Readonly<Record<string, string>>;
}

export const FINDINGS_ROWS: readonly LibraryFindings[] = [
  {
    lock: 'redlock-npm',
    package:
      "redlock@5.0.0-beta.2 (fencepost's own dependency; `npm install redlock@next`-style installs get it, `npm install redlock` does not)",
    usage:
      "`new Redlock(clients)` with the package's defaults, `redlock.acquire([resource], ttl)`, `lock.extend(ttl)` under `--watchdog`, `lock.release()`; over five fail-fast ioredis clients of fencepost's (a 100 ms command timeout, no offline queue), not the README's bare ones (locks/redlock-npm/redlock-npm.ts says why).",
    verdict:
      'safe without faults; a paused holder writes; after a majority restart its retry loop blocks itself (a livelock, in some runs); no fencing token.',
    advice:
      'use redlock 4.2.0 instead, or `retryCount: 0` with a retry loop of your own (the remedy cell). Fence writes that must not be lost.',
  },
  {
    lock: 'redlock-v4',
    package: 'redlock@4.2.0 (what `npm install redlock` gives: its only dist-tag is `latest`)',
    usage:
      "`new Redlock([five ioredis clients])` with the package's defaults (retryCount 10, retryDelay 200 ms, retryJitter 100 ms, driftFactor 0.01), `redlock.lock(resource, ttl)`, `lock.extend(ttl)` under `--watchdog`, `lock.unlock()`; clients `new Redis({ host, port })` (ioredis 6.1.0), nothing else set.",
    verdict:
      'a correct Redlock: frees its partial locks between tries (no livelock after a restart) and never hands out an expired lock — but it waits for every master, so one paused master stops every acquire, and nothing in it stops a paused holder from writing.',
    advice:
      'prefer it to 5.0.0-beta.2 (the beta livelocks after a majority restart). Give its clients a command timeout (ioredis `commandTimeout`) so one slow master costs a vote, not every acquire. It has no fencing token: for data that must not be lost, put a version check or a token-fenced write behind it, or use a consensus lock with a token (etcd3-lock with its create revision).',
    lockCheck: 'passed, all 11 steps (renew included)',
  },
  {
    lock: 'redlock-sesame',
    package: '@sesamecare-oss/redlock@1.4.0 (the maintained fork of node-redlock v5)',
    usage:
      "`redlock.using([key], ttl, async (signal) => { …; if (signal.aborted) throw signal.error; … })` — its README's first example — over five ioredis clients, with the package's defaults (retryCount 10, retryDelay 200 ms, retryJitter 100 ms, automaticExtensionThreshold 500 ms).",
    verdict:
      "using() keeps long work safe, and its `signal.aborted` check comes too late for a paused holder; it kept the beta's self-blocking retry loop.",
    advice:
      "its `signal.aborted` check is no fence: a holder paused after the check writes anyway. Fence the write (a version column or a token check in the resource). Its README now points to redlock-universal; its retry loop still keeps each attempt's partial locks until its last retry — pass `retryCount: 0` and retry yourself (as fencepost's `--retry=harness` does for the beta) if a Redis restart must not leave the lock unavailable.",
    lockCheck: 'passed, all 10 steps',
  },
  {
    lock: 'redis-semaphore',
    package: 'redis-semaphore@5.8.0, `Mutex` (single Redis)',
    usage:
      'README example 1: `new Mutex(redisClient, key, { lockTimeout: ttl, acquireTimeout })`, `await mutex.acquire()`, the work, `await mutex.release()` in `finally`; the default refresh (every 0.8 × lockTimeout) and the default `onLockLost` (throws an unhandled `LostLockError`); ioredis 6.1.0 `new Redis({ host, port })`.',
    verdict:
      'refreshes itself, so long work is safe; a holder paused past its TTL writes, and then the library ends its process with an unhandled LostLockError.',
    advice:
      'do not rely on the default `onLockLost`: it kills the process after the damage is done. Pass `onLockLost` and check `mutex.isAcquired` before each write (README example 2) — and still fence the write, because a paused holder passes that check too. A single Redis loses the lock on a restart or failover.',
    lockCheck: 'passed, all 10 steps',
  },
  {
    lock: 'redis-semaphore-redlock',
    package: 'redis-semaphore@5.8.0, `RedlockMutex` (five masters)',
    usage:
      "Its README's RedlockMutex example over five ioredis clients, `lockTimeout: ttl`, the rest at defaults (refresh every 0.8 × lockTimeout, default `onLockLost`).",
    verdict:
      'frees its partial locks every 10 ms try (no livelock), refreshes itself — but it awaits every master on each try, and checks no validity window at all.',
    advice:
      'as for its Mutex: handle `onLockLost`, fence the write. Give the clients a command timeout, or one paused master stalls every acquire and refresh.',
    lockCheck: 'passed, all 10 steps',
  },
  {
    lock: 'redlock-universal',
    package:
      'redlock-universal@0.8.5 (`engines: node >= 22`; measured on Node 20, where it installs with an EBADENGINE warning and runs)',
    usage:
      "Its Quick Start: `createLock({ adapter: new IoredisAdapter(new Redis()), key, ttl })` and `lock.using(async (signal) => { …; if (signal.aborted) throw new Error('Lock lost'); … })`; defaults (4 tries 100 ms apart, circuit breaker 5 errors → 60 s).",
    verdict:
      'using() keeps long work safe; its `signal.aborted` check does not stop a paused holder; its short retry budget turns contention into many failed acquires.',
    advice:
      'fence the write; the abort signal is a hint, not a guarantee. Raise `retryAttempts` if acquires must wait for a busy lock. Its authors support Node ≥ 22 only.',
    lockCheck: 'passed, all 10 steps (on Node 20)',
  },
  {
    lock: 'redis-lock',
    package: 'redis-lock@1.0.0 with redis@4.7.1 (it refuses node-redis 5 and 6)',
    usage:
      '`const lock = require("redis-lock")(client)`, `const done = await lock(name, ttl)`, the work, `await done()`; node-redis 4 `createClient()` + `connect()`.',
    verdict:
      "releases with a plain DEL guarded by its own clock: it can delete the next holder's lock; no acquire timeout, no extension, no token.",
    advice:
      'do not use it where two writers would hurt: its release can free a lock it no longer owns (errorception/redis-lock#29, open since 2020). A lock whose release compares the owner value (redis-semaphore, redlock) is the minimum; a fenced write is the fix.',
    lockCheck: `FAILED 2 of 9 steps: *a second acquire is refused while A holds it* — it never says no: its acquire retries every 50 ms forever, so the check's 2 s budget ran out with the retry still going (an unknown, not a refusal) — and then *acquire after A released it*: B's abandoned retry loop took the lock the moment A released it, so B's next acquire waited on B's own lock`,
  },
  {
    lock: 'simple-redis-mutex',
    package: 'simple-redis-mutex@3.0.0 with redis@6.4.0',
    usage:
      '`const release = await lock(redis, name, { timeout: ttl, failAfter })`, the work with `release.fencingToken`, `await release()`; node-redis 6 `createClient()` + `connect()`; pollingInterval at its 10 s default.',
    verdict:
      'the one Node Redis lock with a fencing token (an INCR counter): it fences a paused holder — until Redis restarts or fails over, when the counter goes back.',
    advice:
      'use its `fencingToken` in the write (a `WHERE token < $1` check): that makes a paused holder harmless. Run its Redis with `appendfsync always` (or never restart it empty) or the tokens go backwards after a restart; a replica failover re-issues tokens.',
    lockCheck:
      'passed, all 10 steps, once its `failAfter` is told apart from an unreachable Redis (a PING: its error says "could not be acquired" either way); closing its client with an acquire in flight leaves an unhandled rejection from its wait loop, which ends the process',
  },
  {
    lock: 'etcd3-lock',
    package: "etcd3@1.1.2's own `client.lock(key)`",
    usage:
      "`client.lock(key).ttl(seconds)`, `await lock.acquire()` (one attempt; the waiting loop is ours: 100 ms between tries), the work, `await lock.release()`; `new Etcd3({ hosts, auth })`. Token: the key's create revision, read with one `get`.",
    verdict:
      'linearizable and renewed by the library, so long work is safe; a paused holder writes unless the write is fenced by the create revision — which the library does not hand out.',
    advice:
      "read the key's create revision after acquiring and fence the write with it: that made the paused-holder cell safe. The library's `lost` event is on a private lease: you cannot learn that the lock was lost.",
    lockCheck: 'passed, all 10 steps (token = create revision, growing)',
  },
  {
    lock: 'advisory-lock',
    package: 'advisory-lock@2.0.0 (Postgres session advisory locks)',
    usage:
      "`advisoryLock(connectionString)(name).withLock(async () => { … })`, on the run's Postgres; the connection string carries `options=-c lock_timeout=<acquire budget>` so a wait ends (the README's usage waits forever).",
    verdict:
      'no lease, so no paused or slow holder can be overtaken; a session the server ends frees the lock at once, and the library crashes the holder rather than letting it write.',
    advice:
      "the safest of these for work inside one Postgres: the lock lives exactly as long as its session. Set `lock_timeout` (or `statement_timeout`) so a wait cannot block forever, and expect its process to die when an administrator or pooler ends the session (it has no 'error' listener). Behind pgbouncer in transaction mode session locks do not work at all.",
    lockCheck: 'passed, all 10 steps',
  },
];

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
