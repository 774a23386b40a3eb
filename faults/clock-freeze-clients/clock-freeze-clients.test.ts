import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { history, type Event } from '../../test/support/test-history.ts';
import { clockFreezeClients } from './inject.ts';

/** clock-freeze-clients judged on literal records: every client read the frozen second after the freeze and at its end. */

const FROZEN_AT_MS = 1_765_000_000_400; // …000.4 s: the frozen second is 1765000000
const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'clock-freeze-clients',
  value: { phase, targets: ['client-0', 'client-1'], params },
});
const start = (wallAtStart: Record<string, number>) =>
  nemesis('start', { clients: ['client-0', 'client-1'], frozenAtMs: FROZEN_AT_MS, wallAtStart });
const end = (wallAtEnd: Record<string, number>) =>
  nemesis('end', { wallAtEnd, reads: { 'client-0': 3, 'client-1': 1 } });
const shotOf = (...events: Event[]) => faultHits(history(...events))['clock-freeze-clients'].shots[0];
const both = (ms: number) => ({ 'client-0': ms, 'client-1': ms });

describe('clock-freeze-clients', () => {
  it('is a hit when every client read the frozen second from the freeze to its end', () => {
    const shot = shotOf(start(both(FROZEN_AT_MS)), end(both(FROZEN_AT_MS + 1)));
    expect(shot).toMatchObject({
      hit: true,
      evidence: 'client-0, client-1 read their wall clocks at 1765000000 s from the freeze to its end',
    });
  });

  it('is a miss when a clock moved on, a client did not answer, or the freeze never ended', () => {
    // Seconds later at the end: that clock ran.
    expect(
      shotOf(start(both(FROZEN_AT_MS)), end({ 'client-0': FROZEN_AT_MS, 'client-1': FROZEN_AT_MS + 3000 })),
    ).toMatchObject({
      hit: false,
      evidence: 'client-1 did not read the frozen second (1765000000 s) both after the freeze and at its end',
    });
    expect(shotOf(start({ 'client-0': FROZEN_AT_MS }), end(both(FROZEN_AT_MS))).hit).toBe(false);
    expect(shotOf(start(both(FROZEN_AT_MS))).evidence).toBe('the history ended before the clocks were unfrozen');
  });

  it('refuses a Go client, which the shim cannot reach', () => {
    expect(clockFreezeClients.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd-go')).toMatch(/Go binary/);
    expect(
      clockFreezeClients.refusal({ redis: 1, etcd: 0, zk: 0 }, './examples/broken/token-from-clock.ts'),
    ).toBeNull();
  });
});
