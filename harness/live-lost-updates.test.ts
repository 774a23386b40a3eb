import { describe, expect, it } from 'vitest';
import { LiveLostUpdates } from './live-lost-updates.ts';

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
    expect(l.committed(0, 4, 2)).toBe(false); // blind to #3: counted, but not the first
    expect(l.count).toBe(2);
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
});
