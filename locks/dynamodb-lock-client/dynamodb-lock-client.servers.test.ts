import { beforeAll, describe, expect, it } from 'vitest';
import { installNpmLockFor } from '../npm-lock-cache.ts';
import { LockNotAcquired } from '../strategy.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';
import dynamodbLockClient from './dynamodb-lock-client.ts';

/**
 * The row's client on the run's real dynalite: every request dynamodb-lock-client's FailOpen sends — the consistent
 * GetItem, the PutItem conditions `attribute_not_exists(#partitionKey)`, `… or (guid = :guid and fencingToken =
 * :fencingToken)` and `attribute_exists(#partitionKey) and guid = :guid` — answered as DynamoDB answers them: a held
 * lock refused, a released one handed over, a silent holder's lock taken after a lease, the token one higher each time.
 */
const TTL_MS = 1_000;
const env = useStrategyCluster(
  dynamodbLockClient,
  { dynamodb: true },
  { ttlMs: TTL_MS, acquireTimeoutMs: 4 * TTL_MS, seed: 3 },
);

beforeAll(async () => {
  await installNpmLockFor('dynamodb-lock-client', () => {});
});

describe('dynamodb-lock-client on dynalite', () => {
  it('refuses a held lock while its holder heartbeats, hands a released one over with a larger token', async () => {
    const a = await env.connect();
    const b = await env.connect();
    const held = await a.acquire('account-0');
    expect(held.token).toBe('1');
    // B waits a lease, finds a newer guid (A heartbeated), tries once more, and gives up: definitely not held.
    await expect(b.acquire('account-0')).rejects.toBeInstanceOf(LockNotAcquired);
    expect(await a.release(held)).toBe(true);
    const next = await b.acquire('account-0');
    expect(next.token).toBe('2');
    await b.release(next);
  });

  it('lets a waiter take the lock of a holder that stopped heartbeating, a lease after it read it', async () => {
    const gone = await env.connect();
    const waiter = await env.connect();
    const lost = await gone.acquire('account-1');
    // As if its process died: no release, no more heartbeats.
    await gone.close();
    const t0 = performance.now();
    const taken = await waiter.acquire('account-1');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(TTL_MS - 50);
    expect(BigInt(taken.token!)).toBe(BigInt(lost.token!) + 1n);
    await waiter.release(taken);
  });
});
