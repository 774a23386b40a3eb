import { describe, expect, it } from 'vitest';
import { throughputGoals, throughputTable, type ThroughputRow } from './throughput-goal.ts';

const row = (concurrency: number, recorded: number, bare: number, harness = 0.1, servers = 0.3): ThroughputRow => ({
  lock: 'redis',
  accounts: 1,
  concurrency,
  recordedOkPerS: recorded,
  bareOkPerS: bare,
  cpu: { wallS: 10, harness, clients: 0.5, servers, seen: { harness: 1, clients: concurrency, servers: 2 } },
  bareCpu: {
    wallS: 10,
    harness: 0,
    clients: 0.4,
    servers: 0.3,
    seen: { harness: 0, clients: concurrency, servers: 2 },
  },
  topFrames: [{ frame: 'append history/journal.ts', selfMs: 500, share: 0.25 }],
  verdict: 'VALID',
  recordedAcquireP50Ms: 0.62,
  bareAcquireP50Ms: 0.5,
  recordedInfos: 0,
  bareInfos: 0,
});

describe('throughput goals', () => {
  it('are met when every concurrency up to 16 records ≥ 80 % and the harness uses less CPU than the servers', () => {
    const [share, cpu] = throughputGoals([row(1, 90, 100), row(16, 800, 1000), row(32, 100, 1000)], 2);
    expect(share.met).toBe(true);
    // 32 clients at 10 % do not count against the share goal: it is about concurrency ≤ 16.
    expect(share.measured).toBe('worst 80 % at 16 (800 / 1000 ok/s)');
    expect(cpu.met).toBe(true);
  });

  it('name each concurrency that misses, with where the CPU went', () => {
    const [share, cpu] = throughputGoals([row(4, 70, 100), row(8, 79, 100, 0.6, 0.5)], 2);
    expect(share.met).toBe(false);
    expect(share.why).toBe(
      'at 4 70 %, harness 0.10 / clients 0.50 / servers 0.30 cores, harness top frame append history/journal.ts 25 %; ' +
        'at 8 79 %, harness 0.60 / clients 0.50 / servers 0.50 cores, harness top frame append history/journal.ts 25 %',
    );
    expect(cpu.met).toBe(false);
    expect(cpu.why).toBe('at 8 0.60 ≥ 0.50, harness top frame append history/journal.ts 25 %');
  });

  it('are kept per lock and account count, and skipped where nothing was measured', () => {
    const goals = throughputGoals([row(32, 1, 1), { ...row(32, 1, 1), accounts: 16, cpu: null }], 2);
    expect(goals.map((g) => [g.what.split(':')[0], g.met])).toEqual([
      ['redis, 1 account', 'skipped'],
      ['redis, 1 account', true],
      ['redis, 16 accounts', 'skipped'],
      ['redis, 16 accounts', 'skipped'],
    ]);
  });

  it('a CPU reading that found no server process is not a 0 the harness is compared with', () => {
    const blind = {
      ...row(4, 90, 100, 0.2, 0),
      cpu: { ...row(4, 90, 100, 0.2, 0).cpu!, seen: { harness: 1, clients: 4, servers: 0 } },
    };
    expect(throughputGoals([blind], 2)[1]).toMatchObject({
      met: 'skipped',
      why: 'no reading of the client phase found a server process',
    });
    // Beside a row whose reading saw the servers, it is left out, not counted as a miss.
    expect(throughputGoals([blind, row(8, 90, 100, 0.1, 0.3)], 2)[1]).toMatchObject({
      met: true,
      measured: 'worst at 8: harness 0.10, servers 0.30 cores',
    });
  });

  it('a bare loop that recorded nothing is a 0 % share, not a division by zero', () => {
    expect(throughputGoals([row(1, 50, 0)], 2)[0]).toMatchObject({
      met: false,
      measured: 'worst 0 % at 1 (50 / 0 ok/s)',
    });
  });
});

describe('throughput table', () => {
  it('has one row per measurement, with the ratio and the CPU in cores', () => {
    const lines = throughputTable([row(16, 800, 1000)]).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2].split(/\s{2,}/)).toEqual([
      'redis',
      '1',
      '16',
      '800',
      '1000',
      '80 %',
      '0.620 / 0.500',
      '0.10',
      '0.50',
      '0.30',
      '0.40',
      '0.30',
    ]);
  });
});
