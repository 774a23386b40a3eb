import { describe, expect, it } from 'vitest';
import { checkFencingOrder } from './fencing-order.ts';
import { fail, finalRead, history, invoke, ok, row, writeValue } from '../test/support/test-history.ts';

describe('fencing order', () => {
  it('accepts tokens that never go backwards (equal tokens are one holder writing twice)', () => {
    const h = history(
      finalRead(0, 0, 4, [row(1, 0, 0, 1, 0, '5'), row(2, 0, 1, 2, 1, '5'), row(3, 1, 2, 4, 2, '9')], '9'),
    );
    const r = checkFencingOrder(h, { fencing: true });
    expect(r).toMatchObject({ valid: true, tokensChecked: 3, regressions: [], source: 'ledger' });
  });

  it('compares 64-bit tokens exactly (as BigInt, not as doubles)', () => {
    // 2^53 + 1 then 2^53: equal as doubles, but the second is older.
    const h = history(
      finalRead(0, 0, 2, [row(1, 0, 0, 1, 0, '9007199254740993'), row(2, 1, 1, 2, 1, '9007199254740992')]),
    );
    const r = checkFencingOrder(h, { fencing: true });
    expect(r.valid).toBe(false);
    expect(r.regressions).toEqual([
      { account: 0, writeId: 2, token: '9007199254740992', afterWriteId: 1, afterToken: '9007199254740993' },
    ]);
  });

  it('in an unfenced run a regression is reported but is not a violation', () => {
    const h = history(finalRead(0, 0, 2, [row(1, 0, 0, 1, 0, '7'), row(2, 1, 1, 2, 1, '3')]));
    const r = checkFencingOrder(h, { fencing: false });
    expect(r.valid).toBe(true);
    expect(r.regressions).toHaveLength(1);
    expect(r.notes.join('\n')).toContain('unfenced run');
  });

  it('counts writes the resource refused as stale: a stale token, or a version that moved (postgres)', () => {
    const w = writeValue(0, 1, 0, '3');
    const h = history(
      invoke(0, 'write', w),
      fail(0, 'write', w, 'stale-token'),
      invoke(1, 'write', w),
      fail(1, 'write', w, 'version-conflict'),
      // The client skipped this one itself (watchdog): the resource refused nothing.
      invoke(2, 'write', w),
      fail(2, 'write', w, 'lock-lost'),
    );
    expect(checkFencingOrder(h, { fencing: true }).staleWritesRejected).toBe(2);
  });

  it("falls back to the clients' ok writes when the ledger was not read", () => {
    const w1 = writeValue(0, 1, 0, '8');
    const w2 = writeValue(1, 2, 1, '4');
    const h = history(
      invoke(0, 'write', w1),
      ok(0, 'write', { ...w1, writeId: 1 }),
      invoke(1, 'write', w2),
      ok(1, 'write', { ...w2, writeId: 2 }),
    );
    const r = checkFencingOrder(h, { fencing: true });
    expect(r.source).toBe('history');
    expect(r.valid).toBe(false);
  });

  it('notes writes without a token in a fenced run, and tokens it cannot read make it unknown', () => {
    const r1 = checkFencingOrder(history(finalRead(0, 0, 1, [row(1, 0, 0, 1, 0, null)])), { fencing: true });
    expect(r1.unfencedWrites).toBe(1);
    expect(r1.notes.join('\n')).toContain('carried no token in a fenced run');
    const r2 = checkFencingOrder(history(finalRead(0, 0, 1, [row(1, 0, 0, 1, 0, 'abc')])), { fencing: true });
    expect(r2.valid).toBe('unknown');
  });
});
