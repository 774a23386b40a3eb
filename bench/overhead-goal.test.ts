import { describe, expect, it } from 'vitest';
import { floorFor, overheadGoal, type OverheadRow } from './overhead-goal.ts';

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
