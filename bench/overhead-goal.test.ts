import { describe, expect, it } from 'vitest';
import {
  floorFor,
  harnessShareGoal,
  overheadGoal,
  steadyLatency,
  zkAttribution,
  type OverheadRow,
} from './overhead-goal.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';

const q = (p50: number) => ({ count: 100, p50, p90: p50 * 2, p99: p50 * 3, max: p50 * 4 });
const row = (lock: string, recorded: number, direct: number, proxied: number): OverheadRow => ({
  lock,
  floor: floorFor(lock),
  recorded: { acquire: q(recorded), release: q(recorded) },
  floorDirect: { acquire: q(direct), release: q(direct) },
  floorProxied: { acquire: q(proxied), release: q(proxied) },
  ops: 1000,
});

describe('overhead goal', () => {
  it('compares each lock with its own floor', () => {
    expect(floorFor('redis')).toBe('redis');
    expect(floorFor('redlock')).toBe('redis×5');
    expect(floorFor('redlock-npm')).toBe('redis×5');
    expect(floorFor('postgres')).toBe('postgres');
    expect(() => floorFor('none')).toThrow(/no floor for --lock=none/);
  });

  it('is met at 1.5× and missed above, a miss splitting the difference into proxy and the rest', () => {
    expect(overheadGoal(row('etcd', 1.5, 1.0, 1.2)).met).toBe(true);
    const miss = overheadGoal(row('redis', 0.22, 0.09, 0.15));
    expect(miss.met).toBe(false);
    expect(miss.measured).toBe('0.220 / 0.090 ms = 2.44× (2.44× back to back)');
    expect(miss.why).toBe('proxy +0.060 ms, strategy + client library +0.070 ms');
  });

  it('compares with the paced floor when there is one, and leaves the proxy out of a run that went direct', () => {
    const paced: OverheadRow = { ...row('redis', 0.5, 0.05, 0.13), floorPaced: { acquire: q(0.4), release: q(0.4) } };
    const direct = overheadGoal({ ...paced, clientNetwork: 'direct' });
    expect(direct.met).toBe(true);
    expect(direct.measured).toBe('0.500 / 0.400 ms = 1.25× (10.00× back to back)');
    expect(direct.what).toBe('redis acquire p50 recorded vs bare redis (paced), 1 client');
    const missed = overheadGoal({ ...paced, recorded: { acquire: q(0.7), release: q(0.7) }, clientNetwork: 'direct' });
    expect(missed.why).toBe('pacing +0.350 ms, strategy + client library +0.300 ms');
    const proxied = overheadGoal({
      ...paced,
      recorded: { acquire: q(0.7), release: q(0.7) },
      clientNetwork: 'proxied',
    });
    expect(proxied.why).toBe('pacing +0.350 ms, proxy +0.080 ms, strategy + client library +0.220 ms');
  });

  it('says postgres is measured on its write', () => {
    expect(overheadGoal(row('postgres', 1, 1, 1)).what).toMatch(/^postgres write p50/);
  });
});

describe('zkAttribution: the ZooKeeper gap by cause, measured apart', () => {
  const part = (member: number, mode: string | null, create: number, recipe: number, strategy: number) => ({
    member,
    mode,
    create: q(create),
    recipe: q(recipe),
    strategy: q(strategy),
  });
  const parts = [
    part(0, 'follower', 2.0, 3.0, 3.4),
    part(1, 'leader', 1.2, 2.0, 2.3),
    part(2, 'follower', 1.8, 2.8, 3.1),
  ];

  it('takes the median member for each part and names the leader', () => {
    expect(zkAttribution(parts)).toBe(
      "measured apart: the recipe's second round trip (children + the node's stat, for the czxid token) +1.000 ms over one create, " +
        'the strategy and node-zookeeper-client +0.300 ms over the recipe; strategy acquire by member follower 3.40 / leader 2.30 / follower 3.10 ms (leader: member 1)',
    );
  });

  it('goes into a zookeeper miss after the split', () => {
    const miss = overheadGoal({ ...row('zookeeper', 4.0, 1.3, 1.3), clientNetwork: 'direct' }, parts);
    expect(miss.met).toBe(false);
    expect(miss.why).toBe(`strategy + client library +2.700 ms, ${zkAttribution(parts)}`);
  });
});

describe('with the strategy measured alone', () => {
  const withAlone = (recorded: number, paced: number, alone: number): OverheadRow => ({
    ...row('redlock-npm', recorded, 0.2, 0.3),
    floorPaced: { acquire: q(paced), release: q(paced) },
    strategyAlone: { acquire: q(alone), release: q(alone) },
    clientNetwork: 'direct',
  });

  it("splits a miss into the lock's own cost and what the harness adds", () => {
    const miss = overheadGoal(withAlone(1.0, 0.5, 0.9));
    expect(miss.met).toBe(false);
    expect(miss.why).toBe(
      "pacing +0.300 ms, the lock's own code + client library, measured alone +0.400 ms, harness + client process +0.100 ms",
    );
  });

  it("holds the harness to 1.5× the lock's own acquire, and is absent without that measurement", () => {
    expect(harnessShareGoal(withAlone(1.0, 0.5, 0.9))).toMatchObject({
      met: true,
      measured: '1.000 / 0.900 ms = 1.11×',
    });
    expect(harnessShareGoal(withAlone(1.0, 0.5, 0.6))).toMatchObject({
      met: false,
      why: "the harness and the client process add +0.400 ms to the lock's own acquire",
    });
    expect(harnessShareGoal(row('redis', 0.22, 0.09, 0.15))).toBeUndefined();
  });
});

describe('steadyLatency: a run past its warm-up', () => {
  const ms = 1e6;
  let index = 0;
  const op = (process: number | string, type: string, f: string, timeMs: number) =>
    ({ index: index++, time: timeMs * ms, process, type, f, value: null }) as Op;
  const history = History.of([
    op(0, 'invoke', 'acquire', 0),
    op(0, 'ok', 'acquire', 9), // cold: 9 ms, left out
    op('nemesis', 'info', 'start', 1500),
    op(0, 'invoke', 'acquire', 2000),
    op(0, 'ok', 'acquire', 2001),
    op(1, 'invoke', 'acquire', 2500),
    op(1, 'fail', 'acquire', 2503), // not ok: not a latency
    op(1, 'invoke', 'acquire', 3000),
    op(1, 'ok', 'acquire', 3003),
    op(0, 'invoke', 'release', 3000),
    op(0, 'ok', 'release', 3001),
  ]);

  it('times the ok ops of f invoked from warmupMs after the first client op on', () => {
    expect(steadyLatency(history, 'acquire', 1000)).toMatchObject({ count: 2, p50: 1, max: 3 });
    expect(steadyLatency(history, 'acquire', 0)).toMatchObject({ count: 3, max: 9 });
    expect(steadyLatency(history, 'release', 1000)).toMatchObject({ count: 1, p50: 1 });
    expect(steadyLatency(history, 'acquire', 5000).count).toBe(0);
  });
});
