import { describe, expect, it } from 'vitest';
import { checkLinearizable } from './linearizable.ts';
import { accountModel, accountOperations } from './models/account.ts';
import {
  fail,
  finalRead,
  history,
  info,
  invoke,
  ok,
  read,
  row,
  writeValue,
  twoWritersLoseOne,
} from '../test/support/test-history.ts';

const check = (h: ReturnType<typeof history>) =>
  checkLinearizable(accountModel, accountOperations(h), { deadlineMs: 10_000 });

describe('account model: each read → write is one atomic read-modify-write', () => {
  it('sequential critical sections are linearizable', () => {
    const h = history(
      read(0, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 1 }),
      read(1, 110, 1),
      invoke(1, 'write', writeValue(110, 130, 1)),
      ok(1, 'write', { ...writeValue(110, 130, 1), writeId: 2 }),
      finalRead(0, 100, 130, [row(1, 0, 100, 110, 0), row(2, 1, 110, 130, 1)]),
    );
    expect(check(h).valid).toBe(true);
  });

  it('catches a lost update: two clients read 100 and both write', () => {
    const h = twoWritersLoseOne();
    const r = check(h);
    expect(r.valid).toBe(false);
    const cx = r.counterexample!;
    // Process 1's RMW read 100 after process 0's had already made it 110.
    expect(cx.op.process).toBe(1);
    expect(cx.op.description).toBe('account 0: read 100, wrote 120 (+20)');
    expect(cx.state).toBe('balance 110');
    expect(cx.op.indexes).toEqual([2, 3, 6, 7]);
    expect(cx.message).toContain('in which the op is impossible');
  });

  it('a write refused as stale did not happen: its read stands alone and is fine', () => {
    const h = history(
      read(0, 100, 0),
      read(1, 100, 0),
      invoke(1, 'write', writeValue(100, 120, 0, '6')),
      ok(1, 'write', { ...writeValue(100, 120, 0, '6'), writeId: 1 }),
      invoke(0, 'write', writeValue(100, 110, 0, '5')),
      fail(0, 'write', writeValue(100, 110, 0, '5'), 'stale-token'),
      finalRead(0, 100, 120, [row(1, 1, 100, 120, 0, '6')], '6'),
    );
    expect(check(h).valid).toBe(true);
  });

  it('a timed-out write may have landed: the next client read its value', () => {
    const h = history(
      read(0, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      info(0, 'write', writeValue(100, 110, 0)),
      read(1, 110, 1),
      invoke(1, 'write', writeValue(110, 130, 1)),
      ok(1, 'write', { ...writeValue(110, 130, 1), writeId: 2 }),
      finalRead(0, 100, 130, [row(1, 0, 100, 110, 0), row(2, 1, 110, 130, 1)]),
    );
    expect(check(h).valid).toBe(true);
  });

  it('a timed-out write may never have landed', () => {
    const h = history(
      read(0, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      info(0, 'write', writeValue(100, 110, 0)),
      read(1, 100, 0),
      invoke(1, 'write', writeValue(100, 120, 0)),
      ok(1, 'write', { ...writeValue(100, 120, 0), writeId: 1 }),
      finalRead(0, 100, 120, [row(1, 1, 100, 120, 0)]),
    );
    expect(check(h).valid).toBe(true);
  });

  it('the ledger decides whether a timed-out write landed: with no row for it, it never did', () => {
    // p1 read 110, which only p0's timed-out write could have produced; but the ledger has no row for it.
    const h = history(
      read(0, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      info(0, 'write', writeValue(100, 110, 0)),
      read(1, 110, 0),
      finalRead(0, 100, 100, []),
    );
    expect(check(h).valid).toBe(false);
    // Without the ledger the write may have landed, and the same reads are linearizable.
    expect(check(h.slice(0, 6)).valid).toBe(true);
  });

  it('a timed-out write that landed late, over a newer one, is a lost update', () => {
    // p0 read 100 and timed out writing 110; p1 then did 100 → 120; the final balance is 110, so p0's write
    // landed after p1's and erased it. The RMW is atomic, so p0's read of 100 cannot be placed after p1's write.
    const h = history(
      read(0, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      info(0, 'write', writeValue(100, 110, 0)),
      read(1, 100, 0),
      invoke(1, 'write', writeValue(100, 120, 0)),
      ok(1, 'write', { ...writeValue(100, 120, 0), writeId: 1 }),
      finalRead(0, 100, 110, [row(1, 1, 100, 120, 0), row(2, 0, 100, 110, 0)]),
    );
    const r = check(h);
    expect(r.valid).toBe(false);
    // Placing p0's write first leaves p1's read of 100 impossible; that is the deepest dead end.
    expect(r.counterexample?.op.description).toBe('account 0: read 100, wrote 120 (+20)');
    expect(r.counterexample?.state).toBe('balance 110');
  });

  it('is checked per account: a lost update on account 1 is found and reported there', () => {
    const h = history(
      read(0, 100, 0, 0),
      invoke(0, 'write', writeValue(100, 110, 0, undefined, 0)),
      ok(0, 'write', { ...writeValue(100, 110, 0, undefined, 0), writeId: 1 }),
      read(1, 50, 0, 1),
      read(2, 50, 0, 1),
      invoke(1, 'write', writeValue(50, 55, 0, undefined, 1)),
      ok(1, 'write', { ...writeValue(50, 55, 0, undefined, 1), writeId: 2 }),
      invoke(2, 'write', writeValue(50, 57, 0, undefined, 1)),
      ok(2, 'write', { ...writeValue(50, 57, 0, undefined, 1), writeId: 3 }),
      finalRead(0, 100, 110, [row(1, 0, 100, 110, 0)]),
      finalRead(1, 50, 57, [row(2, 1, 50, 55, 0, null, 1), row(3, 2, 50, 57, 0, null, 1)]),
    );
    const r = check(h);
    expect(r.partitions).toBe(2);
    expect(r.valid).toBe(false);
    expect(r.counterexample?.op.description).toMatch(/^account 1: /);
  });

  it('without a final read, the opening balance is whatever the first read saw', () => {
    const h = history(
      read(0, 70, 0),
      invoke(0, 'write', writeValue(70, 75, 0)),
      ok(0, 'write', { ...writeValue(70, 75, 0), writeId: 1 }),
      read(1, 75, 1),
    );
    expect(check(h).valid).toBe(true);
    const stale = history(
      read(0, 70, 0),
      invoke(0, 'write', writeValue(70, 75, 0)),
      ok(0, 'write', { ...writeValue(70, 75, 0), writeId: 1 }),
      read(1, 70, 0),
    );
    expect(check(stale).valid).toBe(false);
  });

  it('the opening balance from the final read must match the first read', () => {
    const h = history(read(0, 99, 0), finalRead(0, 100, 100, []));
    expect(check(h).valid).toBe(false);
  });
});
