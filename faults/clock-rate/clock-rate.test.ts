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

  it('a node whose TIME stepped back when the rate went back to 1 fails the shot', () => {
    expect(rateNotReached({ ev: ev({ timeAfterHealUs: { 'redis[0]': 999_000 } }) })).toBe(
      'the clock of redis[0] stepped back when the rate went back to 1',
    );
  });
});

describe('clock-rate: where it acts and how fast', () => {
  it('acts on Redis; refuses a lock held elsewhere, saying why', () => {
    expect(clockRate.refusal({ redis: 1, etcd: 0, zk: 0 }, 'redis')).toBeNull();
    expect(clockRate.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd')).toBe(
      "--lock=etcd's lock is not held by Redis: clock-rate proves each shot with a Redis probe key, and has no probe for its servers yet",
    );
  });

  it('--clock-rate takes a number above 0 and at most 100; 2 by default', () => {
    expect(resolveConfig(['--lock=redis']).clockRate).toBe(2);
    expect(resolveConfig(['--lock=redis', '--clock-rate=0.5']).clockRate).toBe(0.5);
    for (const bad of ['0', '-1', '101', 'fast', ''])
      expect(() => resolveConfig(['--lock=redis', `--clock-rate=${bad}`])).toThrow(/--clock-rate/);
  });
});
