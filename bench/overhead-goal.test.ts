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
    expect(miss.measured).toBe('0.220 / 0.090 ms = 2.44×');
    expect(miss.why).toBe('proxy +0.060 ms, strategy + client library +0.070 ms');
  });

  it('says postgres is measured on its write', () => {
    expect(overheadGoal(row('postgres', 1, 1, 1)).what).toMatch(/^postgres write p50/);
  });
});
