import { describe, expect, it } from 'vitest';
import { checkMutualExclusion, holdIntervals } from './mutual-exclusion.ts';
import { fail, finalRead, history, info, invoke, ok, read, row, writeValue } from '../test/support/test-history.ts';

const acquire = (p: number, token?: string, account = 0) => [
  invoke(p, 'acquire', { account }),
  ok(p, 'acquire', { account, ...(token ? { token } : {}) }),
];
const release = (p: number, account = 0) => [
  invoke(p, 'release', { account }),
  ok(p, 'release', { account, released: true }),
];

describe('mutual exclusion', () => {
  it('has nothing to check when nobody takes a lock (strategy none)', () => {
    const h = history(read(0, 100, 0), read(1, 100, 0));
    const r = checkMutualExclusion(h);
    expect(r.valid).toBe(true);
    expect(r.intervals).toBe(0);
    expect(r.note).toMatch(/no acquire ops/);
  });

  it('finds no overlap when holds follow one another', () => {
    const h = history(acquire(0), release(0), acquire(1), release(1));
    const r = checkMutualExclusion(h);
    expect(r).toMatchObject({ valid: true, overlaps: [], intervals: 2 });
  });

  it('holds of different accounts do not overlap', () => {
    const h = history(acquire(0, undefined, 0), acquire(1, undefined, 1), release(0, 0), release(1, 1));
    expect(checkMutualExclusion(h).overlaps).toEqual([]);
  });

  it('reports overlapping holds as suspected when the resource shows no damage (the fence refused the stale write)', () => {
    const h = history(
      acquire(0, '5'), // 0, 1
      acquire(1, '6'), // 2, 3: granted while p0 holds it
      read(0, 100, 0), // 4, 5
      read(1, 100, 0), // 6, 7
      invoke(1, 'write', writeValue(100, 120, 0, '6')),
      ok(1, 'write', { ...writeValue(100, 120, 0, '6'), writeId: 1 }),
      invoke(0, 'write', writeValue(100, 110, 0, '5')),
      fail(0, 'write', writeValue(100, 110, 0, '5'), 'stale-token'),
      release(0), // 12, 13
      release(1), // 14, 15
      finalRead(0, 100, 120, [row(1, 1, 100, 120, 0, '6')], '6'),
    );
    const r = checkMutualExclusion(h);
    expect(r.valid).toBe(true);
    expect(r.suspected).toBe(1);
    expect(r.overlaps).toEqual([
      {
        account: 0,
        a: { process: 0, acquiredAt: 1_000_000, releasedAt: 12_000_000, acquireIndex: 1 },
        b: { process: 1, acquiredAt: 3_000_000, releasedAt: 14_000_000, acquireIndex: 3 },
        kind: 'suspected',
      },
    ]);
  });

  it('confirms an overlap when the ledger shows the two critical sections interleaved (a lost update)', () => {
    const h = history(
      acquire(0, '5'),
      acquire(1, '6'),
      read(0, 100, 0),
      read(1, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0, '5')), // 8
      ok(0, 'write', { ...writeValue(100, 110, 0, '5'), writeId: 1 }),
      invoke(1, 'write', writeValue(100, 120, 0, '6')), // 10
      ok(1, 'write', { ...writeValue(100, 120, 0, '6'), writeId: 2 }),
      release(0),
      release(1),
      finalRead(0, 100, 120, [row(1, 0, 100, 110, 0, '5'), row(2, 1, 100, 120, 0, '6')]),
    );
    const r = checkMutualExclusion(h);
    expect(r.valid).toBe(false);
    expect(r.confirmed).toBe(1);
    expect(r.overlaps[0].kind).toBe('confirmed');
    expect(r.overlaps[0].evidence).toBe(
      "process 1's write 2 (op #10) was based on write 0 and committed after process 0's write 1 (op #8), erasing it",
    );
  });

  it('a client that crashed holding the lock holds it until its last op completed', () => {
    const h = history(
      acquire(0), // 0, 1
      read(0, 100, 0), // 2, 3
      invoke(0, 'write', writeValue(100, 110, 0)), // 4
      info(0, 'write', writeValue(100, 110, 0)), // 5: crashed here
      acquire(1), // 6, 7
      release(1),
    );
    const [p0] = holdIntervals(h);
    expect(p0).toMatchObject({ process: 0, acquireIndex: 1, endIndex: 5, end: 'never-released' });
    expect(checkMutualExclusion(h).overlaps).toEqual([]);
  });

  it('a client whose op was still open when the history ended holds the lock to the end', () => {
    const h = history(acquire(0), invoke(0, 'write', writeValue(100, 110, 0)), acquire(1), release(1));
    const [p0] = holdIntervals(h);
    expect(p0).toMatchObject({ endIndex: 6, releasedAt: 6_000_000 }); // the last op of the history
    expect(checkMutualExclusion(h).suspected).toBe(1);
  });

  it("a failed renewal by the client's watchdog (its own process id) ends the hold it names by token", () => {
    const h = history(
      acquire(0, '5'), // 0, 1
      invoke(100_000, 'renew', { account: 0, token: '5' }), // 2
      fail(100_000, 'renew', { account: 0 }, 'lock-lost'), // 3
      acquire(1, '6'), // 4, 5
      release(1),
      release(0),
    );
    const [p0] = holdIntervals(h);
    expect(p0).toMatchObject({ process: 0, endIndex: 3, end: 'lock-lost' });
    expect(checkMutualExclusion(h).overlaps).toEqual([]);
  });
});
