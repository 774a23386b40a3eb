import { describe, expect, it } from 'vitest';
import { eventually } from './eventually.ts';

describe('eventually', () => {
  it('returns the first value that is neither undefined nor false, sync or async', async () => {
    let n = 0;
    expect(await eventually('the third try', () => (++n >= 3 ? n : undefined), 5_000, 1)).toBe(3);
    let m = 0;
    expect(await eventually('an async true', async () => ++m >= 2, 5_000, 1)).toBe(true);
    // null and 0 are states, not "not yet".
    expect(await eventually('null', () => null, 5_000)).toBeNull();
    expect(await eventually('zero', () => 0, 5_000)).toBe(0);
  });

  it('retries a probe that throws, and returns once it answers', async () => {
    let n = 0;
    const probe = () => {
      if (++n < 3) throw new Error(`not up (try ${n})`);
      return 'up';
    };
    expect(await eventually('the server', probe, 5_000, 1)).toBe('up');
  });

  it('after the deadline, throws naming what was awaited and what the probe said last', async () => {
    await expect(eventually('the znode', () => false, 30, 5)).rejects.toThrow(
      /^the znode: not within 30 ms \(last: it gave false\)$/,
    );
    let n = 0;
    const failing = async () => {
      throw new Error(`ECONNREFUSED (try ${++n})`);
    };
    await expect(eventually('the port', failing, 30, 5)).rejects.toThrow(
      /^the port: not within 30 ms \(last: it threw: ECONNREFUSED \(try \d+\)\)$/,
    );
  });
});
