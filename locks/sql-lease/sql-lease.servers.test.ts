import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Op } from '../../history/op.ts';
import { postgresUrl } from '../../harness/client-specs.ts';
import { lockSessionName } from '../../workloads/lock-session-name.ts';
import { LockNotAcquired, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';
import sqlLease from './sql-lease.ts';
import sqlLeaseDbtime from '../sql-lease-dbtime/sql-lease-dbtime.ts';

/**
 * The two ShedLock-shaped lease rows on a real Postgres: first their clients against ShedLock's table directly (the
 * lock's contract, a client clock moved ahead, the unlock with and without its owner check), then scripted runs
 * through the CLI's own path, where the lost updates and the lock's broken promises are the checkers' to find.
 */
const TTL_MS = 5_000;
const env = useStrategyCluster(sqlLease, { pg: true }, { ttlMs: TTL_MS, acquireTimeoutMs: 600, seed: 7 });
/** As far ahead as `--clock-offset`'s default puts a clock: far past any lease here. */
const CLIENT_AHEAD_MS = 60_000;

let observer: pg.Client;
const opened: LockClient[] = [];
let slot = 0;

/** A client of `strategy` as a run's slot would have it: its own session on the run's Postgres, its own locked_by. */
async function open(strategy: LockStrategy, over: Partial<LockContext> = {}): Promise<LockClient> {
  const client = slot++;
  const c = await strategy.connect(
    env.ctx({
      client,
      seed: 7 + client,
      postgresUrl: postgresUrl(env.cluster.pg!.connectionConfig(), lockSessionName(client)),
      ...over,
    }),
  );
  opened.push(c);
  return c;
}

/** The row ShedLock keeps for `key`, read by a session of the test's own. */
async function row(key: string): Promise<{ locked_by: string; held_ms: number } | undefined> {
  const { rows } = await observer.query<{ locked_by: string; held_ms: string }>(
    'SELECT locked_by, extract(epoch FROM lock_until - locked_at) * 1000 AS held_ms FROM shedlock WHERE name = $1',
    [`lock:${key}`],
  );
  return rows[0] && { locked_by: rows[0].locked_by, held_ms: Number(rows[0].held_ms) };
}

beforeAll(async () => {
  observer = new pg.Client(env.cluster.pg!.connectionConfig());
  await observer.connect();
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await observer?.end();
});

const BOTH = [
  { name: 'sql-lease', strategy: sqlLease },
  { name: 'sql-lease-dbtime', strategy: sqlLeaseDbtime },
];

describe.each(BOTH)('$name on a real Postgres', ({ name, strategy }) => {
  it("takes ShedLock's row for the TTL, refuses a second client while held, hands the row over on unlock", async () => {
    const key = `${name}-contract`;
    const [a, b] = [await open(strategy), await open(strategy, { acquireTimeoutMs: 300 })];
    const lease = await a.acquire(key);
    expect(lease.attempts).toBe(1);
    expect(await row(key)).toEqual({ locked_by: `fencepost-client-${slot - 2}`, held_ms: TTL_MS });
    const refused = await b.acquire(key).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LockNotAcquired);
    expect((refused as LockNotAcquired).attempts).toBeGreaterThan(1);
    expect(await a.release(lease)).toBe(true);
    const next = await b.acquire(key);
    expect(await row(key)).toMatchObject({ locked_by: `fencepost-client-${slot - 1}` });
    expect(await b.release(next)).toBe(true);
  });
});

describe('a client whose clock is ahead (the clients run the same code on the same Postgres)', () => {
  it('sql-lease takes a lease still held: its `lock_until <= now` reads the asking client’s clock', async () => {
    const key = 'ahead-client-time';
    const [a, b] = [await open(sqlLease), await open(sqlLease)];
    await a.acquire(key);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + CLIENT_AHEAD_MS });
    const stolen = await b.acquire(key);
    expect(stolen.attempts).toBe(1);
    expect(await row(key)).toMatchObject({ locked_by: `fencepost-client-${slot - 1}` });
  });

  it('sql-lease-dbtime refuses it: every time of its lease is the database’s', async () => {
    const key = 'ahead-db-time';
    const [a, b] = [await open(sqlLeaseDbtime), await open(sqlLeaseDbtime, { acquireTimeoutMs: 300 })];
    await a.acquire(key);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + CLIENT_AHEAD_MS });
    expect(await b.acquire(key).catch((e: unknown) => e)).toBeInstanceOf(LockNotAcquired);
    expect(await row(key)).toMatchObject({ locked_by: `fencepost-client-${slot - 2}` });
  });
});

/**
 * A holds a short lease and outlives it; B takes the row for a long one; then A unlocks, as a holder that resumed
 * does. C asks at once: the row is free only if A's unlock freed B's lease.
 */
async function lateUnlock(strategy: LockStrategy, key: string) {
  const a = await open(strategy, { ttlMs: 200 });
  const b = await open(strategy, { ttlMs: 10_000, acquireTimeoutMs: 3_000 });
  const c = await open(strategy, { acquireTimeoutMs: 300 });
  const late = await a.acquire(key);
  await b.acquire(key);
  const released = await a.release(late);
  const third = await c.acquire(key).then(
    () => 'granted',
    (e: unknown) => (e instanceof LockNotAcquired ? 'refused' : `error: ${(e as Error).message}`),
  );
  return { released, third, holder: (await row(key))?.locked_by };
}

describe("the unlock of a holder that outlived its lease, while the next holder's lease runs", () => {
  it("sql-lease (ShedLock 6.x: WHERE name = ? only) frees the next holder's lease: a third client is granted", async () => {
    const base = slot;
    expect(await lateUnlock(sqlLease, 'late-unlock-client-time')).toEqual({
      released: true,
      third: 'granted',
      holder: `fencepost-client-${base + 2}`,
    });
  });

  it('sql-lease-dbtime (AND locked_by = ?) frees nothing of it: the third client is refused', async () => {
    const base = slot;
    expect(await lateUnlock(sqlLeaseDbtime, 'late-unlock-db-time')).toEqual({
      released: false,
      third: 'refused',
      holder: `fencepost-client-${base + 1}`,
    });
  });
});

/** Each client op's completion as `p0 acquire ok`: the interleaving the script made. */
const clientOps = (ops: Op[]) =>
  ops
    .filter((o) => typeof o.process === 'number' && o.type !== 'invoke')
    .map((o) => `p${String(o.process)} ${o.f} ${o.type}`);

/** The paused holder, then its unlock and a new acquire while B (granted during the pause) has not written yet. */
const PAUSED_THEN_LATE_UNLOCK = [
  'A acquire',
  'A read',
  'pause A',
  'wait lease-expired A',
  'B acquire',
  'B read',
  'resume A',
  'A write',
  'A release',
  'A acquire',
  'A read',
  'B write',
  'A write',
  'A release',
  'B release',
];

/** The clock step of a run with no Redis jumps the Postgres server's clock (faults/clock/inject.ts). */
const DB_CLOCK_JUMP = [
  'A acquire',
  'A read',
  'clock +60s A',
  'B acquire',
  'B read',
  'clock reset',
  'A write',
  'B write',
  'A release',
  'B release',
];

describe('scripted runs (the CLI path, the checkers decide)', () => {
  it('--lock=sql-lease, a paused holder that then unlocks: it frees B’s lease, A is granted inside it — broken promise', async () => {
    const run = await scriptedRun({ name: 'sql-lease-late-unlock', steps: PAUSED_THEN_LATE_UNLOCK }, [
      '--lock=sql-lease',
      '--ttl=1000',
    ]);
    expect(run.record.followed, run.summary).toBe(true);
    expect(clientOps(run.ops)).toEqual([
      'p0 acquire ok',
      'p0 read ok',
      'p1 acquire ok',
      'p1 read ok',
      'p0 write ok',
      'p0 release ok',
      'p0 acquire ok',
      'p0 read ok',
      'p1 write ok',
      'p0 write ok',
      'p0 release ok',
      'p1 release ok',
    ]);
    const r = run.outcome.results;
    expect(r.valid, run.summary).toBe(false);
    expect(r.lostUpdates).toBeGreaterThanOrEqual(1);
    // A's second hold began inside B's lease: the lock granted a lease it had promised B (the unlock's doing).
    expect(r.checkers.promise.counts?.broke, run.summary).toBeGreaterThanOrEqual(1);
    expect(run.leftovers).toEqual([]);
  });

  it('--lock=sql-lease-dbtime, the same script: A’s unlock frees nothing, A waits out B’s lease — no broken promise', async () => {
    const run = await scriptedRun({ name: 'sql-lease-dbtime-late-unlock', steps: PAUSED_THEN_LATE_UNLOCK }, [
      '--lock=sql-lease-dbtime',
      '--ttl=1000',
    ]);
    expect(run.record.followed, run.summary).toBe(true);
    const releases = run.ops.filter((o) => o.f === 'release' && o.type === 'ok' && o.process === 0);
    expect(releases.map((o) => (o.value as { released: boolean }).released)).toEqual([false, true]);
    const r = run.outcome.results;
    // B outlived its lease while A waited it out: lost updates, but each the late holder's, none the lock's.
    expect(r.lostUpdates, run.summary).toBeGreaterThanOrEqual(1);
    expect(r.checkers.promise.counts, run.summary).toMatchObject({ broke: 0 });
    expect(r.checkers.promise.counts?.outlived).toBeGreaterThanOrEqual(1);
    expect(run.leftovers).toEqual([]);
  });

  it('--lock=sql-lease-dbtime, the Postgres clock jumps +60 s: B is granted at once, A’s write is lost', async () => {
    const run = await scriptedRun({ name: 'sql-lease-dbtime-clock', steps: DB_CLOCK_JUMP }, [
      '--lock=sql-lease-dbtime',
      '--ttl=1000',
    ]);
    expect(run.record.followed, run.summary).toBe(true);
    const r = run.outcome.results;
    expect(r.valid, run.summary).toBe(false);
    expect(r.lostUpdates).toBe(1);
    expect(
      r.faultHits.clock.shots[0].story?.map((s) => s.status),
      run.summary,
    ).toEqual(['done', 'done', 'done', 'done']);
    expect(grantedAfterMs(run.ops)).toBeLessThan(1_000);
    expect(run.leftovers).toEqual([]);
  });

  it('--lock=sql-lease, the same jump: the database clock is not its clock, B waits out A’s lease', async () => {
    const run = await scriptedRun({ name: 'sql-lease-clock', steps: DB_CLOCK_JUMP }, [
      '--lock=sql-lease',
      '--ttl=1000',
    ]);
    expect(run.record.followed, run.summary).toBe(true);
    expect(grantedAfterMs(run.ops)).toBeGreaterThanOrEqual(1_000 - CLOCK_DOMAINS_MS);
    expect(run.outcome.results.checkers.promise.counts, run.summary).toMatchObject({ broke: 0 });
    expect(run.leftovers).toEqual([]);
  });
});

/**
 * The lease's end is A's `Date.now()` at its INSERT plus the TTL, in whole milliseconds (truncated), and B is granted
 * once its own `Date.now()` reaches it; the history stamps A's invoke and B's grant on the harness's clock at other
 * instants. So B's grant may come up to about a millisecond under 1 s after A's invoke stamp (999.85 ms, once in a
 * soak beside a CPU hog, 2026-12-06). The margin stays far from the dbtime row, which B enters at once.
 */
const CLOCK_DOMAINS_MS = 20;

/** How long after A asked for the lock (its acquire's invoke) B was granted it, in ms of the history's clock. */
function grantedAfterMs(ops: Op[]): number {
  const asked = ops.find((o) => o.process === 0 && o.f === 'acquire' && o.type === 'invoke')!;
  const granted = ops.find((o) => o.process === 1 && o.f === 'acquire' && o.type === 'ok')!;
  return (granted.time - asked.time) / 1e6;
}
