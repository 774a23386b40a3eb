import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../../history/fault-names.ts';
import { BUILTIN_LOCKS } from '../lock-names.ts';
import { loadStrategy } from '../load-strategy.ts';
import { strategyProblems } from '../resolved-strategy.ts';
import { BUILTIN_STRATEGIES } from './registry.ts';

/** Every built-in, loaded through the registry as a run loads it (modules only: nothing connects). */
const builtins = await Promise.all(
  BUILTIN_LOCKS.map(async (lock) => ({
    lock,
    declared: (await import(BUILTIN_STRATEGIES[lock])).default,
    resolved: await loadStrategy(lock),
  })),
);

describe('the built-in strategies', () => {
  it('are the registry, in its order, with the seven the oracle was written for first', () => {
    expect(BUILTIN_LOCKS).toEqual(Object.keys(BUILTIN_STRATEGIES));
    expect(BUILTIN_LOCKS.slice(0, 7)).toEqual([
      'none',
      'redis',
      'redlock',
      'redlock-npm',
      'etcd',
      'zookeeper',
      'postgres',
    ]);
  });

  it.each(builtins.map((b) => [b.lock, b] as const))(
    '%s describes itself completely: servers, renews, default faults, and why it has no token',
    (lock, { declared, resolved }) => {
      expect(strategyProblems(declared, true)).toEqual([]);
      expect(resolved).toMatchObject({ lock, builtin: true, name: lock });
      // A built-in leaves nothing to the plugin defaults: each fact is written in its own file.
      if (declared.needs.length) expect(declared.servers).toBeDefined();
      expect(typeof declared.renews).toBe('boolean');
      expect(declared.defaultFaults.length).toBeGreaterThan(0);
      for (const f of declared.defaultFaults) expect(FAULT_NAMES).toContain(f);
      expect(declared.defaultFaults).toContain('pause-holder');
      if (declared.token === 'none')
        expect(resolved.noTokenReason).toMatch(/^(?!the strategy .* declares no fencing token).{20,}$/);
    },
  );

  it('run on the servers they use: one Redis for redis, five masters for Redlock, 3 etcd, 3 ZooKeeper, none for none/postgres', () => {
    const servers = Object.fromEntries(builtins.map((b) => [b.lock, b.resolved.servers]));
    expect(servers).toMatchObject({
      none: { redis: 0, etcd: 0, zk: 0 },
      redis: { redis: 1, etcd: 0, zk: 0 },
      redlock: { redis: 5, etcd: 0, zk: 0 },
      'redlock-npm': { redis: 5, etcd: 0, zk: 0 },
      etcd: { redis: 0, etcd: 3, zk: 0 },
      zookeeper: { redis: 0, etcd: 0, zk: 3 },
      postgres: { redis: 0, etcd: 0, zk: 0 },
    });
  });

  it('keep the default faults the oracle columns call for', () => {
    const faults = (lock: string) => builtins.find((b) => b.lock === lock)!.resolved.defaultFaults;
    expect(faults('redis')).toEqual(expect.arrayContaining(['restart-empty', 'clock', 'failover']));
    expect(faults('redlock')).toEqual(expect.arrayContaining(['restart-empty', 'clock']));
    expect(faults('etcd')).toEqual(expect.arrayContaining(['kill', 'partition']));
  });

  it('let --watchdog apply exactly to the Redis locks, whose lease the client must renew', () => {
    const renews = Object.fromEntries(builtins.map((b) => [b.lock, b.resolved.renews]));
    expect(renews).toMatchObject({
      none: false,
      redis: true,
      redlock: true,
      'redlock-npm': true,
      etcd: false,
      zookeeper: false,
      postgres: false,
    });
  });
});
