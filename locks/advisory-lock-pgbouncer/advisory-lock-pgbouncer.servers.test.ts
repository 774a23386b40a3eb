import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessHost } from '../../cluster/local/process-host.ts';
import { PgbouncerNode } from '../../cluster/servers/pgbouncer-node.ts';
import { PG_DATABASE, PG_ROLE } from '../../cluster/credentials.ts';
import { freePort } from '../../common/free-port.ts';
import { PidRegistry } from '../../common/pid-registry.ts';
import { postgresUrl } from '../../harness/client-specs.ts';
import type { AcquireOk } from '../../history/bank.ts';
import type { Op } from '../../history/op.ts';
import { lockSessionName } from '../../workloads/lock-session-name.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockStrategy } from '../strategy.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';
import advisoryLockPgbouncer from './advisory-lock-pgbouncer.ts';
import advisoryLockPgbouncerSession from '../advisory-lock-pgbouncer-session/advisory-lock-pgbouncer-session.ts';
import advisoryXactLockPgbouncer from '../advisory-xact-lock-pgbouncer/advisory-xact-lock-pgbouncer.ts';
import { advisoryKey, lockNameOf, type PooledHold } from './pooled-advisory-lock.ts';

/**
 * The three advisory-lock rows behind a real pgbouncer: first their clients directly (which backend ran each lock
 * call and unlock, and what pg_locks says), then scripted runs through the CLI's path, where the checkers decide.
 * The file's cluster has a transaction-mode pgbouncer; the session row gets a second pgbouncer, in session mode, in
 * front of the same Postgres.
 */
const WAIT_MS = 1500;
const env = useStrategyCluster(
  advisoryLockPgbouncer,
  { pg: true, pgbouncer: { poolMode: 'transaction', waitTimeoutMs: WAIT_MS } },
  { ttlMs: 5000, acquireTimeoutMs: WAIT_MS, seed: 7 },
);

let observer: pg.Client;
let sessionBouncer: PgbouncerNode;
let sessionDir: string;
const opened: LockClient[] = [];
let slot = 0;

const urlOf = (node: PgbouncerNode, client: number) => postgresUrl(node.connectionConfig(), lockSessionName(client));

/** A client of `strategy` as a run's slot would have it, through `bouncer` (the file's transaction-mode one). */
async function open(strategy: LockStrategy, bouncer?: PgbouncerNode): Promise<LockClient> {
  const client = slot++;
  const c = await strategy.connect(env.ctx({ client, pgbouncerUrl: urlOf(bouncer ?? env.cluster.pgbouncer!, client) }));
  opened.push(c);
  return c;
}

/** The backends that hold the advisory lock of `key` right now, by Postgres's own account (pg_locks). */
async function holders(key: string): Promise<number[]> {
  const [k1, k2] = advisoryKey(lockNameOf(key));
  // A two-int4 advisory lock: classid = k1, objid = k2, objsubid = 2 (as oid: the int4's bits, unsigned).
  const { rows } = await observer.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
        AND classid = ($1::int4::bigint & 4294967295)::oid AND objid = ($2::int4::bigint & 4294967295)::oid
        AND objsubid = 2 ORDER BY pid`,
    [k1, k2],
  );
  return rows.map((r) => r.pid);
}

const backendOf = (lease: Lease) => lease.evidence?.lockBackend;
const outcome = (p: Promise<Lease>) =>
  p.then(
    (l) => ({ granted: backendOf(l) }),
    (e: unknown) => (e instanceof LockNotAcquired ? 'refused' : `error: ${(e as Error).message}`),
  );

beforeAll(async () => {
  observer = new pg.Client(env.cluster.pg!.connectionConfig());
  await observer.connect();
  sessionDir = await mkdtemp(path.join(tmpdir(), 'fencepost-pgbouncer-session-'));
  sessionBouncer = new PgbouncerNode({
    name: 'pgbouncer-session',
    kind: 'pgbouncer',
    port: await freePort(),
    dir: path.join(sessionDir, 'node'),
    logFile: path.join(sessionDir, 'pgbouncer-session.log'),
    host: new ProcessHost(new PidRegistry(path.join(sessionDir, 'pids'))),
    readyTimeoutMs: 20_000,
    pgPort: env.cluster.pg!.port,
    database: PG_DATABASE,
    user: PG_ROLE,
    password: env.cluster.credentials.pg,
    poolMode: 'session',
    waitTimeoutMs: WAIT_MS,
  });
  await sessionBouncer.start();
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await observer?.end();
  await sessionBouncer?.halt();
  // Its files may live outside sessionDir (a 0700 temp dir the postgres account cannot enter): dispose removes them.
  await sessionBouncer?.dispose();
  if (sessionDir) await rm(sessionDir, { recursive: true, force: true });
});

describe('advisory-lock-pgbouncer (transaction pooling)', () => {
  it('grants a held lock to a second client: its pg_advisory_lock ran on the holder’s backend, re-entrant', async () => {
    const [a, b] = [await open(advisoryLockPgbouncer), await open(advisoryLockPgbouncer)];
    const first = await a.acquire('double');
    const second = await b.acquire('double');
    expect(backendOf(second)).toBe(backendOf(first));
    // One backend holds it (twice over): the two holders are one session to Postgres.
    expect(await holders('double')).toEqual([backendOf(first)]);
    expect([await a.release(first), await b.release(second)]).toEqual([true, true]);
    expect(await holders('double')).toEqual([]);
  });

  it('strands the lock when the unlock runs on the other backend: it returns false, pg_locks still shows it', async () => {
    const a = await open(advisoryLockPgbouncer);
    const lease = await a.acquire('stranded');
    const x = backendOf(lease)!;
    // Another client's long statement takes backend X (the last used) while A unlocks: A's unlock gets the other one.
    const busy = new pg.Client(env.cluster.pgbouncer!.connectionConfig());
    await busy.connect();
    const onX = busy.query<{ backend: number }>('SELECT pg_backend_pid() AS backend, pg_sleep(0.5)');
    await expect
      .poll(
        async () =>
          (await observer.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`, [x])).rowCount,
      )
      .toBe(1);
    const released = await a.release(lease);
    expect((await onX).rows[0].backend).toBe(x);
    await busy.end();
    const unlock = (lease.handle as PooledHold).unlock!;
    expect({ released, unlockedOn: unlock.backend === x ? 'X' : 'another' }).toEqual({
      released: false,
      unlockedOn: 'another',
    });
    expect(await holders('stranded')).toEqual([x]);
    // Whoever lands on X next is granted it at once; the stranded lock ends only with X's session.
    await observer.query('SELECT pg_terminate_backend($1)', [x]);
    await expect.poll(() => holders('stranded')).toEqual([]);
  });
});

describe('advisory-lock-pgbouncer-session (session pooling)', () => {
  it('keeps a second client out while held, hands the lock over on unlock', async () => {
    const [a, b] = [
      await open(advisoryLockPgbouncerSession, sessionBouncer),
      await open(advisoryLockPgbouncerSession, sessionBouncer),
    ];
    const first = await a.acquire('session');
    expect(await outcome(b.acquire('session'))).toBe('refused');
    expect(await holders('session')).toEqual([backendOf(first)]);
    expect(await a.release(first)).toBe(true);
    const next = await b.acquire('session');
    expect(await holders('session')).toEqual([backendOf(next)]);
    expect(await b.release(next)).toBe(true);
  });
});

describe('advisory-xact-lock-pgbouncer (transaction pooling, the lock in an open transaction)', () => {
  it('keeps a second client out while the transaction is open, hands the lock over at COMMIT', async () => {
    const [a, b] = [await open(advisoryXactLockPgbouncer), await open(advisoryXactLockPgbouncer)];
    const first = await a.acquire('xact');
    expect(await outcome(b.acquire('xact'))).toBe('refused');
    expect(await holders('xact')).toEqual([backendOf(first)]);
    expect(await a.release(first)).toBe(true);
    expect(await holders('xact')).toEqual([]);
    const next = await b.acquire('xact');
    expect(await b.release(next)).toBe(true);
  });
});

/** A holds the lock and has read; B asks for it; then both write, A first (scenarios/pooled-double-grant.json). */
const B_ASKS_WHILE_A_HOLDS = [
  'A acquire',
  'A read',
  'try B acquire',
  'B read',
  'A write',
  'B write',
  'A release',
  'B release',
];

/** The backend each client's granted acquire ran on, by process (the acquire's ok value: evidence.lockBackend). */
const grantedOn = (ops: Op[]) =>
  ops
    .filter((o) => o.f === 'acquire' && o.type === 'ok')
    .map((o) => [o.process, (o.value as AcquireOk).evidence?.lockBackend]);

describe('scripted runs (the CLI path, the checkers decide)', () => {
  it('scenarios/pooled-double-grant.json (--lock=advisory-lock-pgbouncer): B let in on A’s backend, a write lost', async () => {
    const run = await scriptedRun({ shipped: 'pooled-double-grant' }, []);
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.record.steps[2].status, run.summary).toBe('done');
    const [[pa, xa], [pb, xb]] = grantedOn(run.ops);
    expect([pa, pb]).toEqual([0, 1]);
    expect(typeof xa).toBe('number');
    expect(xb).toBe(xa);
    const r = run.outcome.results;
    expect(r.valid, run.summary).toBe(false);
    expect(r.lostUpdates).toBe(1);
    expect(run.leftovers).toEqual([]);
  });

  it.each(['advisory-lock-pgbouncer-session', 'advisory-xact-lock-pgbouncer'])(
    '--lock=%s, the same script: B is kept out, nothing is lost',
    async (lock) => {
      const run = await scriptedRun({ name: `${lock}-kept-out`, steps: B_ASKS_WHILE_A_HOLDS }, [`--lock=${lock}`]);
      expect(run.record.followed, run.summary).toBe(true);
      expect(run.record.steps[2].status, run.summary).toBe('held');
      expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
      expect(run.outcome.results.valid, run.summary).toBe(true);
      expect(run.leftovers).toEqual([]);
    },
  );
});
