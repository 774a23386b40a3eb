import { describe, expect, it } from 'vitest';
import { REAL_TIME, changeRate, fakeMonotonic, toPpb } from './clock-segment.ts';
import { MonotonicTimeline } from './monotonic-timeline.ts';

const S = 1_000_000_000n; // one second in ns

/** A client slowed to 0.25 at 10 s for 4 s real, then back to 1: its monotonic clock is 3 s behind from then on. */
function slowedClient() {
  const slow = changeRate(REAL_TIME, 10n * S, toPpb(0.25));
  const healed = changeRate(slow, 14n * S, toPpb(1));
  const t = new MonotonicTimeline();
  t.push(slow);
  t.push(healed);
  return { t, slow, healed };
}

describe('a shimmed monotonic reading mapped back to real time (the history stays in real order)', () => {
  it('leaves readings as they are while no rate moved the clock', () => {
    const t = new MonotonicTimeline();
    expect(t.untouched).toBe(true);
    expect(t.realAt(7n * S)).toBe(7n * S);
  });

  it('maps readings before, during and after a slow stretch back to the real instants they were taken at', () => {
    const { t, slow, healed } = slowedClient();
    expect(t.realAt(9n * S)).toBe(9n * S); // before the rate
    expect(fakeMonotonic(slow, 12n * S)).toBe(10n * S + S / 2n); // 2 s real → 0.5 s fake
    expect(t.realAt(10n * S + S / 2n)).toBe(12n * S);
    expect(healed.baseDriftNs).toBe(-3n * S);
    expect(t.realAt(11n * S)).toBe(14n * S); // the heal: fake 11 s is real 14 s
    expect(t.realAt(17n * S)).toBe(20n * S); // after it: 3 s behind for good, mapped back
  });

  it('keeps the order of readings taken in real order, on both sides of every change', () => {
    const { t } = slowedClient();
    const { slow, healed } = slowedClient();
    const realInstants = [5n, 9n, 10n, 11n, 13n, 14n, 15n, 30n].map((x) => x * S);
    const seg = (m: bigint) => (m < 10n * S ? REAL_TIME : m < 14n * S ? slow : healed);
    const mapped = realInstants.map((m) => t.realAt(fakeMonotonic(seg(m), m)));
    expect(mapped).toEqual(realInstants);
  });

  it('maps a reading from a frozen stretch (r = 0) to the stretch’s start, and refuses a segment out of order', () => {
    const frozen = changeRate(REAL_TIME, 10n * S, toPpb(0));
    const t = new MonotonicTimeline();
    t.push(frozen);
    t.push(changeRate(frozen, 12n * S, toPpb(1)));
    expect(t.realAt(10n * S)).toBe(10n * S);
    expect(t.realAt(11n * S)).toBe(13n * S);
    expect(() => t.push(changeRate(REAL_TIME, 5n * S, toPpb(2)))).toThrow(/starts before the last one/);
  });

  it('a fast stretch maps back too: r = 2 for 1 s puts the clock 1 s ahead', () => {
    const fast = changeRate(REAL_TIME, 10n * S, toPpb(2));
    const t = new MonotonicTimeline();
    t.push(fast);
    t.push(changeRate(fast, 11n * S, toPpb(1)));
    expect(t.realAt(11n * S)).toBe(10n * S + S / 2n);
    expect(t.realAt(13n * S)).toBe(12n * S);
  });
});
