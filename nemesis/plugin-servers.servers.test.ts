import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { starts, runNemesis } from '../test/support/nemesis-test-kit.ts';

const PLUGIN = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'plugins', 'single-redis.ts');

describe('a plugin declaring its servers and default faults', () => {
  it('servers: { redis: 1 } starts one Redis, and its own default faults (no --nemesis) strike that node only', async () => {
    const run = await runNemesis([
      `--lock=${PLUGIN}`,
      '--pause=600',
      '--nemesis-interval=400',
      '--time-limit=8',
      '--ttl=500',
      '--seed=3',
    ]);
    const test = run.test;
    expect(test.faults).toEqual(['pause-node', 'restart-empty']);
    expect(test.strategy.servers, run.summary).toEqual({ redis: 1, etcd: 0, zk: 0 });
    expect(test.nodes.map((n) => n.name).sort()).toEqual(['pg', 'redis[0]']);
    const paused = starts(run, 'pause-node');
    expect(paused.length, run.summary).toBeGreaterThan(0);
    for (const s of paused) expect(s.value.targets, run.summary).toEqual(['redis[0]']);
    for (const s of starts(run, 'restart-empty')) expect(s.value.targets, run.summary).toEqual(['redis[0]']);
    expect(run.leftovers).toEqual([]);
  });
});
