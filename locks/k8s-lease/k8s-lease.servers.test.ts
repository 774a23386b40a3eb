import type { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Op } from '../../history/op.ts';
import { eventually } from '../../test/support/eventually.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';
import { etcdClientFor } from '../etcd/etcd-client.ts';
import { electionTimings, type ElectionRecord } from './election-record.ts';
import { EtcdLeaseLock } from './etcd-lease-lock.ts';
import k8sLease, { leaseKeyFor } from './k8s-lease.ts';
import { LeaderElector } from './leader-elector.ts';

/**
 * The k8s-lease row on a real etcd: client-go's electors against one record (a candidate kept out while the record
 * changes, let in once it stood still for LeaseDuration, the release that trusts a stale observation), then the
 * paused holder scripted through the CLI's own path, where the lost update and its fence are the checkers' to find.
 */
const TTL_MS = 2_000;
const env = useStrategyCluster(k8sLease, { etcd: 3 }, { ttlMs: TTL_MS, acquireTimeoutMs: 7_000, seed: 48 });

let etcd: Etcd3;
beforeAll(async () => {
  etcd = etcdClientFor(env.ctx());
  // The electors' first call must not be the client's first: CI saw it fail ('unknown') 173 ms after the cluster
  // was up, the client still authenticating; the timings below are what is under test, not the client's start.
  await eventually(
    'etcd answers a read as the run user',
    async () => (await etcd.get(leaseKeyFor('ready')).string(), true),
    30_000,
  );
});
afterAll(() => etcd?.close());

/** An elector of its own on `key`'s record, with timings scaled from `ttlMs`. */
const elector = (key: string, identity: string, ttlMs = 300) =>
  new LeaderElector(new EtcdLeaseLock(etcd, leaseKeyFor(key)), identity, electionTimings(ttlMs));

const record = async (key: string): Promise<ElectionRecord> =>
  JSON.parse((await etcd.get(leaseKeyFor(key)).string())!) as ElectionRecord;

const soon = () => performance.now() + 2_000;
/** The electors here scale from a 300 ms TTL: LeaseDuration 300 ms. The times are what is under test. */
const RENEW_EVERY_MS = 100;
const PAST_LEASE_MS = 350;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('client-go electors on one etcd record', () => {
  it('a candidate is kept out while the record changes, takes it once it stood still for LeaseDuration (token + 1)', async () => {
    const [a, b] = [elector('takeover', 'A'), elector('takeover', 'B')];
    expect(await a.tryAcquireOrRenew(soon())).toBe('held');
    expect(await b.tryAcquireOrRenew(soon())).toBe('refused');
    // A renews every 100 ms for 600 ms (LeaseDuration 300): B, asking as often, never sees it stand still.
    for (let i = 0; i < 6; i++) {
      await sleep(RENEW_EVERY_MS);
      expect(await a.tryAcquireOrRenew(soon())).toBe('held');
      expect(await b.tryAcquireOrRenew(soon())).toBe('refused');
    }
    await sleep(PAST_LEASE_MS);
    expect(await b.tryAcquireOrRenew(soon())).toBe('held');
    expect(await record('takeover')).toMatchObject({ holderIdentity: 'B', leaderTransitions: 1 });
  });

  it("the release of a holder that has not seen its successor frees the successor's record (ReleaseOnCancel)", async () => {
    const [a, b, c] = [elector('stale-release', 'A'), elector('stale-release', 'B'), elector('stale-release', 'C')];
    expect(await a.tryAcquireOrRenew(soon())).toBe('held');
    expect(await b.tryAcquireOrRenew(soon())).toBe('refused');
    await sleep(PAST_LEASE_MS);
    expect(await b.tryAcquireOrRenew(soon())).toBe('held');
    // A last saw itself holding: its release writes the empty holder over B's record.
    expect(await a.tryRelease(soon())).toBe('released');
    expect(await record('stale-release')).toMatchObject({ holderIdentity: '', leaderTransitions: 1 });
    expect(await c.tryAcquireOrRenew(soon())).toBe('held');
    expect(await record('stale-release')).toMatchObject({ holderIdentity: 'C', leaderTransitions: 2 });
  });

  it('a release after the holder saw its successor writes nothing', async () => {
    const [a, b] = [elector('seen-release', 'A'), elector('seen-release', 'B')];
    expect(await a.tryAcquireOrRenew(soon())).toBe('held');
    expect(await b.tryAcquireOrRenew(soon())).toBe('refused');
    await sleep(PAST_LEASE_MS);
    expect(await b.tryAcquireOrRenew(soon())).toBe('held');
    expect(await a.tryAcquireOrRenew(soon())).toBe('refused');
    expect(await a.tryRelease(soon())).toBe('not-leader');
    expect(await record('seen-release')).toMatchObject({ holderIdentity: 'B' });
  });
});

/** Each acquire's token, by client: the transitions count of the term it began. */
const tokens = (ops: Op[]) =>
  ops
    .filter((o) => o.f === 'acquire' && o.type === 'ok')
    .map((o) => `p${String(o.process)} ${(o.value as { token?: string }).token}`);

describe('the paused holder scripted (scenarios/paused-holder.json, --lock=k8s-lease)', () => {
  it("A, paused past LeaseDuration, resumes still leading and writes over B's update: lost (INVALID, exit 1)", async () => {
    const run = await scriptedRun({ shipped: 'paused-holder' }, ['--lock=k8s-lease']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(tokens(run.ops)).toEqual(['p0 0', 'p1 1']);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(1);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    const [shot] = run.outcome.results.faultHits['pause-holder'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(run.leftovers).toEqual([]);
  });

  it('with --fencing, A’s write carries transitions 0 after B’s 1 and is refused: no lost update (VALID, exit 0)', async () => {
    const run = await scriptedRun({ shipped: 'paused-holder' }, ['--lock=k8s-lease', '--fencing']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(tokens(run.ops)).toEqual(['p0 0', 'p1 1']);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.results.staleWritesRejected, run.summary).toBe(1);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
