import { describe, expect, it } from 'vitest';
import { loadStrategy, whenDrained } from './load-strategy.ts';

describe("modules loading at once share one 'beforeExit' listener", () => {
  it('twelve loads pending add one listener, and none is left once they settle (Node warned of a leak at 11)', () => {
    const before = process.listenerCount('beforeExit');
    const told: number[] = [];
    const loaded = Array.from({ length: 12 }, (_, i) => whenDrained(() => told.push(i)));
    expect(process.listenerCount('beforeExit')).toBe(before + 1);
    for (const done of loaded) done();
    expect(process.listenerCount('beforeExit')).toBe(before);
    expect(told).toEqual([]);
  });

  it("--lock=all's rows loaded together: one listener while they load, none after", async () => {
    const before = process.listenerCount('beforeExit');
    const locks = ['none', 'redis', 'redlock', 'redlock-npm', 'etcd', 'zookeeper', 'postgres'];
    const loading = Promise.all(locks.map((l) => loadStrategy(l)));
    expect(process.listenerCount('beforeExit')).toBeLessThanOrEqual(before + 1);
    expect((await loading).map((s) => s.name)).toHaveLength(locks.length);
    expect(process.listenerCount('beforeExit')).toBe(before);
  });
});
