import { describe, expect, it } from 'vitest';
import { cpuBetween, type CpuSnapshot, type Role } from './process-cpu.ts';

const snap = (atS: number, ticks: [number, Role, number][]): CpuSnapshot => ({
  atNs: BigInt(atS * 1e9),
  ticks: new Map(ticks.map(([pid, role, t]) => [pid, { role, ticks: t }])),
});

describe('CPU between two snapshots', () => {
  it('gives cores per role over the wall time', () => {
    const a = snap(10, [
      [7, 'harness', 1000],
      [1, 'client', 100],
      [2, 'client', 50],
      [3, 'server', 0],
    ]);
    // 2 s later: clients used 0.6 s + 0.2 s, the server 1.0 s, the harness 0.8 s.
    const b = snap(12, [
      [7, 'harness', 1080],
      [1, 'client', 160],
      [2, 'client', 70],
      [3, 'server', 100],
    ]);
    const c = cpuBetween(a, b);
    expect(c.wallS).toBe(2);
    expect(c.clients).toBeCloseTo(0.4);
    expect(c.servers).toBeCloseTo(0.5);
    expect(c.harness).toBeCloseTo(0.4);
  });

  it('counts all of the CPU of a process that started after the first snapshot', () => {
    const a = snap(0, [[1, 'server', 10]]);
    const b = snap(1, [
      [1, 'server', 30],
      [9, 'server', 50], // a backend forked in between
    ]);
    expect(cpuBetween(a, b).servers).toBeCloseTo(0.7);
    expect(cpuBetween(a, b).harness).toBe(0);
  });
});
