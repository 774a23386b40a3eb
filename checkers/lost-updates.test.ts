import { describe, expect, it } from 'vitest';
import { checkLostUpdates } from './lost-updates.ts';
import {
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

describe('lost updates, from the ledger', () => {
  it('none when every write is based on the one before it', () => {
    const r = checkLostUpdates(history(finalRead(0, 100, 130, [row(1, 0, 100, 110, 0), row(2, 1, 110, 130, 1)])));
    expect(r.valid).toBe(true);
    expect(r.lostUpdates).toEqual([]);
    expect(r.accounts).toEqual([
      { account: 0, initialBalance: 100, finalBalance: 130, committedWrites: 2, lostWrites: 0, expectedBalance: 130 },
    ]);
  });

  it('names the lost write and the write that overwrote it, with their history indexes', () => {
    const h = twoWritersLoseOne();
    const r = checkLostUpdates(h);
    expect(r.valid).toBe(false);
    expect(r.lostUpdates).toEqual([
      {
        account: 0,
        lost: row(1, 0, 100, 110, 0),
        overwrittenBy: row(2, 1, 100, 120, 0),
        lostOpIndex: 5,
        overwrittenByOpIndex: 7,
      },
    ]);
    expect(r.inconsistencies).toEqual([]);
  });

  it('one stale write can erase several', () => {
    const ledger = [row(1, 0, 100, 101, 0), row(2, 1, 101, 103, 1), row(3, 2, 103, 106, 2), row(4, 3, 100, 110, 0)];
    const r = checkLostUpdates(history(finalRead(0, 100, 110, ledger)));
    expect(r.lostUpdates.map((l) => [l.lost.writeId, l.overwrittenBy.writeId])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
  });

  it('a write that a surviving write was based on is not lost, even if another write skipped it', () => {
    // 1: 100 → 110 (based on the opening balance); 2: 100 → 120 (also based on it: skips 1);
    // 3: 110 → 115 (based on 1, so it carries 1's +10 forward and skips 2). Final 115 = 100 + 10 + 5.
    // Only 2 is lost. "Every write between a write's base and itself is erased" would count 1 as lost too.
    const ledger = [row(1, 0, 100, 110, 0), row(2, 1, 100, 120, 0), row(3, 2, 110, 115, 1)];
    const r = checkLostUpdates(history(finalRead(0, 100, 115, ledger)));
    expect(r.lostUpdates.map((l) => [l.lost.writeId, l.overwrittenBy.writeId])).toEqual([[2, 3]]);
    expect(r.inconsistencies).toEqual([]);
  });

  it('a timed-out write that landed is matched to its ledger row', () => {
    const h = history(
      read(0, 100, 0), // 0, 1
      invoke(0, 'write', writeValue(100, 110, 0)), // 2
      info(0, 'write', writeValue(100, 110, 0)), // 3
      read(1, 100, 0), // 4, 5
      invoke(1, 'write', writeValue(100, 120, 0)), // 6
      ok(1, 'write', { ...writeValue(100, 120, 0), writeId: 2 }), // 7
      finalRead(0, 100, 120, [row(1, 0, 100, 110, 0), row(2, 1, 100, 120, 0)]),
    );
    const [lost] = checkLostUpdates(h).lostUpdates;
    expect(lost.lostOpIndex).toBe(3);
    expect(lost.overwrittenByOpIndex).toBe(7);
  });

  it('a final balance the ledger cannot explain is a harness bug: reported, and the verdict is unknown', () => {
    const r = checkLostUpdates(history(finalRead(0, 100, 999, [row(1, 0, 100, 110, 0)])));
    expect(r.valid).toBe('unknown');
    expect(r.inconsistencies.join('\n')).toContain('final balance 999');
    expect(r.inconsistencies.join('\n')).toContain('opening 100 + surviving deltas = 110');
  });

  it('a write the client saw commit but the ledger lacks is reported', () => {
    const h = history(
      read(0, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 7 }),
      finalRead(0, 100, 100, []),
    );
    const r = checkLostUpdates(h);
    expect(r.valid).toBe('unknown');
    expect(r.inconsistencies).toEqual([
      'write op #3 (process 0) completed ok with write id 7 but the ledger has no such row',
    ]);
  });

  it('without a final read of an account that was written, the answer is unknown', () => {
    const h = history(
      read(0, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 1 }),
    );
    const r = checkLostUpdates(h);
    expect(r.valid).toBe('unknown');
    expect(r.notes).toEqual(['no final-read for account(s) 0: their lost updates cannot be counted']);
  });
});
