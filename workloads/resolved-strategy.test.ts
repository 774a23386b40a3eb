import { describe, expect, it } from 'vitest';
import { FAULTS_EVERY_LOCK_MUST_SURVIVE, resolveStrategy, strategyProblems } from './resolved-strategy.ts';
import type { LockStrategy } from '../locks/strategy.ts';

const connect: LockStrategy['connect'] = async () => {
  throw new Error('not called: resolution never connects');
};
const at = { lock: './p.ts', moduleUrl: 'file:///x/p.ts', builtin: false };

/** A plugin as written before servers/noTokenReason/renews/defaultFaults existed (examples/my-lock.ts's shape). */
const OLD_FORM: LockStrategy = { name: 'my-lock', needs: ['redis'], token: 'none', connect };

describe('resolveStrategy', () => {
  it('gives a plugin of the old form the defaults derived from its fields: 5 Redis masters, a generic reason, the common faults', () => {
    expect(strategyProblems(OLD_FORM, false)).toEqual([]);
    expect(resolveStrategy(OLD_FORM, at)).toEqual({
      lock: './p.ts',
      moduleUrl: 'file:///x/p.ts',
      builtin: false,
      name: 'my-lock',
      token: 'none',
      exclusive: true,
      servers: { redis: 5, etcd: 0, zk: 0 },
      needs: ['redis'],
      noTokenReason: 'the strategy "my-lock" declares no fencing token',
      renews: null,
      defaultFaults: ['pause-holder', 'pause-client', 'partition'],
      harnessRetry: false,
      foreign: null,
      lease: null,
      pgbouncer: null,
      dynamodb: false,
    });
  });

  it('keeps a declared lease for the promise checker, and says what is wrong with a malformed one', () => {
    const redlock = { kind: 'ttl-from-request', driftFactor: 0.01 } as const;
    expect(strategyProblems({ ...OLD_FORM, lease: redlock }, false)).toEqual([]);
    expect(resolveStrategy({ ...OLD_FORM, lease: redlock }, at).lease).toEqual(redlock);
    expect(strategyProblems({ ...OLD_FORM, lease: { kind: 'ttl-from-request', driftFactor: 2 } }, false)).toEqual([
      '`lease.driftFactor` must be a number from 0 to below 1',
    ]);
    expect(strategyProblems({ ...OLD_FORM, lease: { kind: 'forever' } as never }, false)).toEqual([
      "`lease.kind` must be 'ttl-from-request', 'reported-from-request' or 'unknown'",
    ]);
    expect(strategyProblems({ ...OLD_FORM, lease: { kind: 'unknown', why: ' ' } }, false)).toEqual([
      '`lease.why` must be a sentence',
    ]);
  });

  it('keeps `dynamodb: true` (the run then starts a dynalite for it) and refuses any other value', () => {
    expect(resolveStrategy({ ...OLD_FORM, needs: [], dynamodb: true }, at).dynamodb).toBe(true);
    expect(strategyProblems({ ...OLD_FORM, dynamodb: 'yes' as never }, false)).toEqual([
      '`dynamodb` must be true when it is given',
    ]);
  });

  it('derives 3 etcd members and 3 ZooKeeper servers from needs, and nothing from an empty needs', () => {
    expect(resolveStrategy({ ...OLD_FORM, needs: ['zk', 'etcd'] }, at)).toMatchObject({
      servers: { redis: 0, etcd: 3, zk: 3 },
      needs: ['etcd', 'zk'],
    });
    expect(resolveStrategy({ ...OLD_FORM, needs: [] }, at)).toMatchObject({
      servers: { redis: 0, etcd: 0, zk: 0 },
      needs: [],
    });
  });

  it('takes what the strategy declares over the defaults', () => {
    const s: LockStrategy = {
      ...OLD_FORM,
      servers: { redis: 1 },
      noTokenReason: 'its value is random',
      renews: true,
      defaultFaults: ['restart-empty', 'clock'],
      exclusive: false,
      harnessRetry: true,
    };
    expect(strategyProblems(s, false)).toEqual([]);
    expect(resolveStrategy(s, at)).toMatchObject({
      servers: { redis: 1, etcd: 0, zk: 0 },
      needs: ['redis'],
      noTokenReason: 'its value is random',
      renews: true,
      defaultFaults: ['restart-empty', 'clock'],
      exclusive: false,
      harnessRetry: true,
    });
  });

  it('has no no-token reason for a strategy with a token', () => {
    expect(resolveStrategy({ ...OLD_FORM, needs: ['etcd'], token: 'monotonic' }, at).noTokenReason).toBeNull();
  });

  it('is frozen all the way down, and does not share the default fault list', () => {
    const r = resolveStrategy(OLD_FORM, at);
    expect(
      Object.isFrozen(r) && Object.isFrozen(r.servers) && Object.isFrozen(r.defaultFaults) && Object.isFrozen(r.needs),
    ).toBe(true);
    expect(r.defaultFaults).not.toBe(FAULTS_EVERY_LOCK_MUST_SURVIVE);
  });
});

describe('strategyProblems', () => {
  it.each([
    [{ ...OLD_FORM, servers: { redis: 1, etcd: 3 } }, /`servers` runs \[redis, etcd\] but `needs` lists \[redis\]/],
    [{ ...OLD_FORM, servers: { redis: 0 } }, /`servers` runs \[\] but `needs` lists \[redis\]/],
    [{ ...OLD_FORM, servers: { redis: 1.5 } }, /`servers.redis` must be a whole number from 0 to 9, got 1.5/],
    [{ ...OLD_FORM, servers: { redis: 12 } }, /`servers.redis` must be a whole number from 0 to 9, got 12/],
    [{ ...OLD_FORM, servers: { mongo: 1, redis: 1 } }, /`servers`: unknown server "mongo"/],
    [{ ...OLD_FORM, servers: [1] }, /`servers` must be an object/],
    [
      { ...OLD_FORM, defaultFaults: ['pause-holder', 'earthquake'] },
      /`defaultFaults` names unknown faults: earthquake/,
    ],
    [{ ...OLD_FORM, defaultFaults: 'clock' }, /`defaultFaults` must be an array/],
    [{ ...OLD_FORM, renews: 'yes' }, /`renews` must be true or false/],
    [{ ...OLD_FORM, harnessRetry: 1 }, /`harnessRetry` must be true or false/],
    [{ ...OLD_FORM, noTokenReason: '' }, /`noTokenReason` must be a sentence/],
    [
      { ...OLD_FORM, needs: ['etcd'], token: 'monotonic', noTokenReason: 'none' },
      /`noTokenReason` is for `token: 'none'`/,
    ],
    [{ ...OLD_FORM, needs: ['mysql'] }, /`needs`: unknown server "mysql"/],
    [{ ...OLD_FORM, needs: 'redis' }, /`needs` must be an array of 'redis' \| 'etcd' \| 'zk'/],
    [{ ...OLD_FORM, token: 'version' }, /`token: 'version'` is reserved for the built-in postgres strategy/],
    [{ name: 'x' }, /`needs` must be an array.*`token` must be.*`connect\(ctx\)` must be a function/],
    [null, /it has no default export object/],
  ])('refuses %j, saying what to change', (s, message) => {
    expect(strategyProblems(s, false).join('; ')).toMatch(message);
  });

  it("lets a built-in declare token 'version'", () => {
    expect(strategyProblems({ ...OLD_FORM, needs: [], token: 'version' }, true)).toEqual([]);
  });
});
