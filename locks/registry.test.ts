import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import { strategyProblems } from '../workloads/resolved-strategy.ts';
import { BUILTIN_STRATEGIES, FOREIGN_BUILTINS, foreignLibraries } from './registry.ts';
import { fileURLToPath } from 'node:url';
import { readForeignLock } from '../workloads/foreign/manifest.ts';

/**
 * Every built-in, loaded through the registry as a run loads it (modules only: nothing connects). A foreign row
 * (a manifest of locks/) declares its facts in the manifest: those, with the connect its client provides.
 */
const builtins = await Promise.all(
  BUILTIN_LOCKS.map(async (lock) => ({
    lock,
    declared: BUILTIN_STRATEGIES[lock].endsWith('.json')
      ? { ...foreignFacts(fileURLToPath(BUILTIN_STRATEGIES[lock])), connect: () => {} }
      : (await import(BUILTIN_STRATEGIES[lock])).default,
    resolved: await loadStrategy(lock),
  })),
);

function foreignFacts(manifest: string) {
  const read = readForeignLock(manifest);
  if ('problems' in read) throw new Error(read.problems.join('; '));
  return read.lock.facts;
}

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
      'redis-py': { redis: 1, etcd: 0, zk: 0 },
      kazoo: { redis: 0, etcd: 0, zk: 3 },
      'python-etcd3': { redis: 0, etcd: 3, zk: 0 },
      'etcd-go': { redis: 0, etcd: 3, zk: 0 },
      curator: { redis: 0, etcd: 0, zk: 3 },
    });
  });

  it('run the real libraries as foreign rows: exactly the FOREIGN_BUILTINS are manifests, each starting its glue', () => {
    const foreign = builtins.filter((b) => b.resolved.foreign !== null).map((b) => b.lock);
    expect(foreign).toEqual(Object.keys(FOREIGN_BUILTINS));
    for (const b of builtins.filter((x) => x.resolved.foreign)) {
      expect(b.resolved).toMatchObject({ builtin: true, foreign: { expectToken: b.resolved.token === 'monotonic' } });
      expect(b.resolved.foreign!.cwd).toMatch(/\/locks\/(python|etcd-go\/etcd-mutex|curator\/curator-mutex)$/);
    }
  });

  it("declare their libraries' packages, which doctor installs by language as docs/locks.md lists them", () => {
    expect(foreignLibraries().flatMap((l) => l.packages)).toEqual([
      'python3-redis',
      'python3-kazoo',
      'python3-etcd3',
      'libcurator-recipes-java',
      'default-jdk-headless',
      'golang-go',
      'golang-etcd-server-dev',
    ]);
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

  it('declare what their lease certainly lasts, for the promise checker: unknown where nothing certain is known', () => {
    const lease = Object.fromEntries(builtins.map((b) => [b.lock, b.resolved.lease?.kind ?? null]));
    expect(lease).toMatchObject({
      none: null,
      postgres: null,
      redis: 'ttl-from-request',
      redlock: 'ttl-from-request',
      'redlock-npm': 'ttl-from-request',
      'etcd3-lock': 'ttl-from-request',
      zookeeper: 'reported-from-request',
      etcd: 'reported-from-request',
      'advisory-lock': 'unknown',
      // The foreign rows say what they say in their replies (validityMs), nothing more.
      'redis-py': null,
      kazoo: null,
    });
    // Every exclusive, non-foreign built-in says: a lock of ours never leaves its promise to a guess.
    for (const b of builtins.filter((x) => x.resolved.exclusive && !x.resolved.foreign))
      expect(b.resolved.lease, b.lock).not.toBeNull();
    const redlocks = builtins.filter((b) => /^redlock/.test(b.lock));
    for (const b of redlocks) expect(b.resolved.lease, b.lock).toEqual({ kind: 'ttl-from-request', driftFactor: 0.01 });
  });
});
