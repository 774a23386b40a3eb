import { describe, expect, it } from 'vitest';
import type { ClusterSpec } from '../../cluster/cluster.ts';
import { buildBuiltinLock } from '../../workloads/foreign/builtin-build.ts';
import { foreignStrategy } from '../../workloads/foreign/foreign-strategy.ts';
import { loadStrategy } from '../../workloads/load-strategy.ts';
import { LockNotAcquired } from '../../locks/strategy.ts';
import { handOver } from './hand-over.ts';
import { useStrategyCluster } from './strategy-test-cluster.ts';

export interface ForeignContract {
  /** What a second acquire of a held lock does: refused (LockNotAcquired), or — a library bug measured as is — an error. */
  contended: 'refused' | { error: RegExp };
}

const TTL_MS = 3_000;
const ACQUIRE_TIMEOUT_MS = 1_500;

/**
 * The contract every built-in foreign row keeps, through the real path of a run: its manifest resolved by
 * loadStrategy, its glue built as a run builds it, its process started and spoken to by the harness's
 * foreignStrategy, against a real cluster. Acquire/release, a second acquire while held, release of a lock no
 * longer held, renew when it renews, and a token that grows from holder to holder when it declares one.
 */
export async function foreignLockContract(lock: string, spec: ClusterSpec, contract: ForeignContract): Promise<void> {
  const resolved = await loadStrategy(lock);
  await buildBuiltinLock(lock, resolved, () => {});
  const strategy = foreignStrategy(lock, resolved.foreign!);
  const { connect } = useStrategyCluster(strategy, spec, {
    ttlMs: TTL_MS,
    acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
    seed: 22,
  });
  const monotonic = resolved.token === 'monotonic';

  describe(`${lock}: the real library behind the lock-client protocol`, () => {
    it('acquires, releases, and says a second release found the lock no longer held', async () => {
      const a = await connect();
      const lease = await a.acquire('solo');
      if (monotonic) expect(BigInt(lease.token!)).toBeGreaterThan(0n);
      else expect(lease.token).toBeUndefined();
      expect(await a.release(lease)).toBe(true);
      expect(await a.release(lease)).toBe(false);
    });

    if (contract.contended === 'refused') {
      it(`hands the lock over: a second client waits while it is held, gets it after the release${monotonic ? ', with a larger token' : ''}`, async () => {
        const [a, b] = [await connect(), await connect()];
        const { first, second, secondDoneEarly, released } = await handOver(a, b, 'contend');
        expect(secondDoneEarly).toBe(false);
        expect(released).toBe(true);
        if (monotonic) expect(BigInt(second.token!)).toBeGreaterThan(BigInt(first.token!));
        expect(await b.release(second)).toBe(true);
      });

      it(`refuses a second acquire while held (not-acquired after the acquire timeout, ${ACQUIRE_TIMEOUT_MS} ms)`, async () => {
        const [a, b] = [await connect(), await connect()];
        const lease = await a.acquire('refuse');
        const t0 = performance.now();
        await expect(b.acquire('refuse')).rejects.toBeInstanceOf(LockNotAcquired);
        expect(performance.now() - t0).toBeGreaterThanOrEqual(ACQUIRE_TIMEOUT_MS * 0.9);
        expect(await a.release(lease)).toBe(true);
      });
    } else {
      const { error } = contract.contended;
      it(`fails a contended acquire with the library's own error (unknown, not "not acquired"): ${error}`, async () => {
        const [a, b] = [await connect(), await connect()];
        const lease = await a.acquire('contend-error');
        const outcome = await b.acquire('contend-error').then(
          () => 'held',
          (err: Error) => err,
        );
        expect(outcome).toBeInstanceOf(Error);
        expect(outcome).not.toBeInstanceOf(LockNotAcquired);
        expect((outcome as Error).message).toMatch(error);
        expect(await a.release(lease)).toBe(true);
        // Free again, a fresh client gets it (with a larger token).
        const c = await connect();
        const next = await c.acquire('contend-error');
        if (monotonic) expect(BigInt(next.token!)).toBeGreaterThan(BigInt(lease.token!));
        expect(await c.release(next)).toBe(true);
      });
    }

    it(`grows its token from holder to holder over several rounds${monotonic ? '' : ' (it has none: every lease is without one)'}`, async () => {
      const [a, b] = [await connect(), await connect()];
      const tokens: (string | undefined)[] = [];
      for (let round = 0; round < 4; round++) {
        const c = round % 2 ? b : a;
        const lease = await c.acquire('rounds');
        tokens.push(lease.token);
        expect(await c.release(lease)).toBe(true);
      }
      if (!monotonic) return expect(tokens).toEqual([undefined, undefined, undefined, undefined]);
      const grown = tokens.map((t) => BigInt(t!));
      for (let i = 1; i < grown.length; i++) expect(grown[i]).toBeGreaterThan(grown[i - 1]);
    });

    if (resolved.renews) {
      it('renews a held lock, and says lost once it is released', async () => {
        const a = await connect();
        const client = a as Required<typeof a>;
        const lease = await a.acquire('renew');
        expect(await client.renew(lease)).toBe(true);
        expect(await a.release(lease)).toBe(true);
        expect(await client.renew(lease)).toBe(false);
      });
    }
  });
}
