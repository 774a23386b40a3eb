import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../harness/run-argv.ts';
import type { Evidence } from '../evidence.ts';
import { rateNotReached } from './judge.ts';
import { clockRate } from './inject.ts';

/** clock-rate on literal records: when a shot proves the rate reached the process, and the option that sets it. */

const ev = (end: Partial<NonNullable<Evidence<'clock-rate'>['end']>> | undefined, rate = 2) =>
  ({
    start: { rate, clocks: ['realtime'], scope: 'wall', aim: { struck: ['redis[0]'] } },
    end: end && {
      slopes: { 'redis[0]': 2.01 },
      probeMs: { 'redis[0]': 300 },
      reads: { 'redis[0]': 41 },
      timeBeforeHealUs: { 'redis[0]': 1_000_000 },
      timeAfterHealUs: { 'redis[0]': 1_000_400 },
      driftMs: { 'redis[0]': 300 },
      ...end,
    },
  }) as unknown as Evidence<'clock-rate'>;

describe('clock-rate: a shot proves the rate reached the node', () => {
  it('reads served through the shim and a probe slope within ±5 % of the rate: reached', () => {
    expect(rateNotReached({ ev: ev({}) })).toBeNull();
    expect(rateNotReached({ ev: ev({ slopes: { 'redis[0]': 0.52 } }, 0.5) })).toBeNull();
  });

  it('no read through the shim is a rate that never reached the process, whatever the slope', () => {
    expect(rateNotReached({ ev: ev({ reads: { 'redis[0]': 0 } }) })).toBe(
      'redis[0] read no clock through the shim while the rate held: the rate never reached it',
    );
  });

  it('a slope off by more than 5 %, or none, is no proof', () => {
    expect(rateNotReached({ ev: ev({ slopes: { 'redis[0]': 1.89 } }) })).toBe(
      "redis[0]'s probe key fell at 1.89 ms per ms over 300 ms, not 2 ± 5 %",
    );
    expect(rateNotReached({ ev: ev({ slopes: {} }) })).toMatch(/could not be read twice/);
    expect(rateNotReached({ ev: ev(undefined) })).toBe('the history ended before the rate was measured');
  });

  it("names the clock it read: ZooKeeper's uptime, Postgres's clock_timestamp()", () => {
    const on = (node: string, slope: number) =>
      ({
        start: { rate: 2, aim: { struck: [node] } },
        end: { slopes: { [node]: slope }, probeMs: { [node]: 400 }, reads: { [node]: 9 } },
      }) as unknown as Evidence<'clock-rate'>;
    expect(rateNotReached({ ev: on('zk[1]', 2.03) })).toBeNull();
    expect(rateNotReached({ ev: on('zk[1]', 1) })).toBe(
      "zk[1]'s uptime (mntr zk_uptime) ran at 1 ms per ms over 400 ms, not 2 ± 5 %",
    );
    expect(rateNotReached({ ev: on('pg', 1.2) })).toBe(
      "pg's clock_timestamp() ran at 1.2 ms per ms over 400 ms, not 2 ± 5 %",
    );
  });

  it('a node whose TIME stepped back when the rate went back to 1 fails the shot', () => {
    expect(rateNotReached({ ev: ev({ timeAfterHealUs: { 'redis[0]': 999_000 } }) })).toBe(
      'the clock of redis[0] stepped back when the rate went back to 1',
    );
  });
});

describe('clock-rate: where it acts and how fast', () => {
  it('acts on Redis, ZooKeeper and a lease on the database clock; refuses etcd and Postgres locks it cannot move', () => {
    expect(clockRate.refusal({ redis: 1, etcd: 0, zk: 0 }, 'redis')).toBeNull();
    expect(clockRate.refusal({ redis: 0, etcd: 0, zk: 3 }, 'zookeeper')).toBeNull();
    expect(clockRate.refusal({ redis: 0, etcd: 0, zk: 0 }, 'sql-lease-dbtime')).toBeNull();
    expect(clockRate.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd')).toBe(
      "--lock=etcd's lock is held by its etcd servers: etcd is a Go binary that reads the clock through the vDSO, not libc, so the LD_PRELOAD clock shim cannot move it (and its leases run on monotonic time anyway)",
    );
    expect(clockRate.refusal({ redis: 0, etcd: 0, zk: 0 }, 'advisory-lock')).toBe(
      "--lock=advisory-lock's lock times no lease by the Postgres server's clock (a session advisory lock lasts as long as its Postgres session): clock-rate runs that clock at a rate, which plays no part in it",
    );
    expect(clockRate.refusal({ redis: 0, etcd: 0, zk: 0 }, 'sql-lease')).toBe(
      "--lock=sql-lease's lock times no lease by the Postgres server's clock (its lease is stamped and compared on its clients' clocks): clock-rate runs that clock at a rate, which plays no part in it",
    );
    expect(clockRate.refusal({ redis: 0, etcd: 0, zk: 0 }, 'dynamodb-lock-client')).toBe(
      "--lock=dynamodb-lock-client keeps its lock in DynamoDB: clock-rate has no probe for its server's clock yet",
    );
  });

  it('--clock-rate takes a number above 0 and at most 100; 2 by default', () => {
    expect(resolveConfig(['--lock=redis']).clockRate).toBe(2);
    expect(resolveConfig(['--lock=redis', '--clock-rate=0.5']).clockRate).toBe(0.5);
    for (const bad of ['0', '-1', '101', 'fast', ''])
      expect(() => resolveConfig(['--lock=redis', `--clock-rate=${bad}`])).toThrow(/--clock-rate/);
  });
});
