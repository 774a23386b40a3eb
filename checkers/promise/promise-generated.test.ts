import { describe, expect, it } from 'vitest';
import { runMemoryBank } from '../../test/support/memory-bank.ts';
import { checkPromise } from './check-promise.ts';

/** The in-memory lock sets its TTL at the grant, as Redis does: the checker's terms for it. */
const TERMS = { ttlMs: 2000, lease: { kind: 'ttl-from-request' as const } };
const SEEDS = [1, 2, 3];

describe('the promise checker on generated histories (the real client loop, a virtual clock)', () => {
  it.each(SEEDS)('seed %i: a paused holder outlives its lease, and the lock is never blamed for it', async (seed) => {
    const run = await runMemoryBank({ seed, clients: 4, durationMs: 20_000, pause: { atMs: 3000, durationMs: 3000 } });
    const r = checkPromise(run.history, TERMS);
    expect(r.counts.broke).toBe(0);
    expect(r.counts.outlived).toBeGreaterThan(0);
    expect(Object.keys(r.byCause)).toEqual(['pause-holder']);
  });

  it.each(SEEDS)('seed %i: a lock that grants while held breaks its promise', async (seed) => {
    const run = await runMemoryBank({ seed, clients: 4, durationMs: 20_000, brokenLockRate: 0.2 });
    expect(run.brokenGrants).toBeGreaterThan(0);
    const r = checkPromise(run.history, TERMS);
    expect(r.valid).toBe(false);
    expect(r.counts.broke).toBeGreaterThanOrEqual(run.brokenGrants / 2);
  });

  it.each(SEEDS)('seed %i: writes that time out and clients that move on overlap nothing', async (seed) => {
    const run = await runMemoryBank({ seed, clients: 4, durationMs: 20_000, infoRate: 0.1 });
    expect(checkPromise(run.history, TERMS).overlaps).toEqual([]);
  });
});
