import { describe, expect, it } from 'vitest';
import { LiveLostUpdates } from './live-lost-updates.ts';
import { checkLostUpdates } from '../checkers/lost-updates.ts';
import type { WriteValue } from '../history/bank.ts';
import { runMemoryBank } from '../test/support/memory-bank.ts';

describe('live lost updates', () => {
  it('sees none in a chain, each write based on the one before', () => {
    const l = new LiveLostUpdates();
    expect([l.committed(0, 1, 0), l.committed(0, 2, 1), l.committed(0, 3, 2)]).toEqual([false, false, false]);
    expect(l.count).toBe(0);
    expect(l.first).toBeNull();
  });

  it('sees a write based on an older write than one committed before it, once, and says so on the first only', () => {
    const l = new LiveLostUpdates();
    l.committed(0, 1, 0);
    l.committed(0, 2, 1);
    expect(l.committed(0, 3, 1)).toBe(true); // #3 read #1: blind to #2
    expect(l.first).toEqual({ account: 0, writeId: 3, missed: 2 });
    expect(l.committed(0, 4, 2)).toBe(false); // blind to #3: not the first
    // The chain 4 → 2 → 1 → 0 leaves #3 off it: one lost update, as the checker counts (it said 2, one per blind write).
    expect(l.count).toBe(1);
    expect(l.first).toEqual({ account: 0, writeId: 3, missed: 2 });
  });

  it('is not fooled by completions arriving out of commit order (the rule "based below the last seen" was)', () => {
    const l = new LiveLostUpdates();
    l.committed(0, 1, 0);
    // #3 (based on #2) completes before #2 (based on #1): nothing is lost.
    expect(l.committed(0, 3, 2)).toBe(false);
    expect(l.committed(0, 2, 1)).toBe(false);
    expect(l.count).toBe(0);
  });

  it('sees a write that missed one whose completion arrives after its own', () => {
    const l = new LiveLostUpdates();
    l.committed(0, 1, 0);
    expect(l.committed(0, 3, 1)).toBe(false); // #2 not seen yet
    expect(l.committed(0, 2, 1)).toBe(true); // #3 read #1, so it missed #2
    expect(l.first).toEqual({ account: 0, writeId: 3, missed: 2 });
  });

  it('keeps accounts apart, and ignores a write reported twice', () => {
    const l = new LiveLostUpdates();
    l.committed(0, 1, 0);
    expect(l.committed(1, 2, 0)).toBe(false); // another account's write #1 is not missed
    expect(l.committed(1, 2, 0)).toBe(false);
    expect(l.count).toBe(0);
  });

  it("counts what the lost-updates checker counts, on a broken lock's run", async () => {
    const { history } = await runMemoryBank({
      clients: 5,
      durationMs: 6000,
      seed: 11,
      brokenLockRate: 0.3,
      accounts: 2,
    });
    const l = new LiveLostUpdates();
    for (const op of history) {
      const w = op.value as Partial<WriteValue> & { writeId?: number };
      if (op.f === 'write' && op.type === 'ok' && typeof op.process === 'number' && w.writeId !== undefined)
        l.committed(w.account!, w.writeId, w.basedOn!);
    }
    const exact = checkLostUpdates(history).lostUpdates.length;
    expect(exact).toBeGreaterThan(3);
    expect(l.count).toBe(exact);
  });

  it('does not count below a base it has not seen (an info write that landed)', () => {
    const l = new LiveLostUpdates();
    l.committed(0, 1, 0);
    // #2 landed but its client timed out: unseen. #3 and #4 are based on it and on #3.
    l.committed(0, 3, 2);
    l.committed(0, 4, 3);
    expect(l.count).toBe(0);
  });
});
