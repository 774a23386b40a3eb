import { describe, expect, it } from 'vitest';
import { cpuBetween, CpuWindow, pidsFromChildren, ticksFromStat, type CpuSnapshot, type Role } from './process-cpu.ts';

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

describe('CPU over a series of snapshots', () => {
  it('counts each process up to the last snapshot that saw it, not 0 for one that ended before the last', () => {
    const w = new CpuWindow();
    expect(w.share()).toBeNull();
    w.add(
      snap(0, [
        [7, 'harness', 0],
        [1, 'client', 0],
        [3, 'server', 0],
        [4, 'server', 0], // a Postgres backend of client 1
      ]),
    );
    w.add(
      snap(1, [
        [7, 'harness', 10],
        [1, 'client', 40],
        [3, 'server', 10],
        [4, 'server', 60],
      ]),
    );
    // Client 1 closed its connection and exited, its backend with it: neither is read at 2 s.
    w.add(
      snap(2, [
        [7, 'harness', 30],
        [3, 'server', 30],
      ]),
    );
    const c = w.share()!;
    expect(c.wallS).toBe(2);
    expect(c.harness).toBeCloseTo(0.15); // 0.30 s over 2 s
    expect(c.clients).toBeCloseTo(0.2); // its 0.40 s to its last reading, over 2 s
    expect(c.servers).toBeCloseTo(0.45); // 0.30 s + the backend's 0.60 s
    expect(c.seen).toEqual({ harness: 1, clients: 1, servers: 2 });
    expect([w.fromNs, w.toNs]).toEqual([0n, 2_000_000_000n]);
  });

  it('one snapshot measures nothing', () => {
    const w = new CpuWindow();
    w.add(snap(5, [[1, 'client', 10]]));
    expect(w.share()).toBeNull();
  });
});

describe('reading /proc', () => {
  it('takes utime + stime (fields 14 and 15) after the last parenthesis of the command name', () => {
    // An etcd member's line as read on this machine: utime 204, stime 34.
    const etcd =
      '512 (etcd) S 11121 512 512 0 -1 4194560 9063 0 3 0 204 34 0 0 20 0 12 0 867439 11767808000 6400 18446744073709551615';
    expect(ticksFromStat(etcd)).toBe(238);
    // A command name with a space and a ')' of its own (prctl can set anything): the fields still line up.
    const odd = '77 (a) b (c)) R 1 77 77 0 -1 4194304 10 0 0 0 5 7 0 0 20 0 1 0 100 0 0';
    expect(ticksFromStat(odd)).toBe(12);
    expect(ticksFromStat('')).toBeNull();
    expect(ticksFromStat('12 (x) S')).toBeNull();
  });

  it("lists a process's children from its children file", () => {
    expect(pidsFromChildren('566 567 569 \n')).toEqual([566, 567, 569]);
    expect(pidsFromChildren('')).toEqual([]);
  });
});
