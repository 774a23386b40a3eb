import { describe, expect, it } from 'vitest';
import type { Op } from '../history/op.ts';
import { pruneCrashedOps } from './crashed-ops.ts';
import { checkLinearizable } from './linearizable.ts';
import { historyModel } from './models/registry.ts';
import { generateCrashedRegisterHistory } from '../test/support/synthetic-crashes.ts';
import { history, info, invoke, ok } from '../test/support/test-history.ts';

function build(model: string, h: Op[]) {
  return historyModel(model)!.build(h, { initial: 0 });
}

/** The verdict with pruning, checked against the verdict without it. */
function bothWays(model: string, h: Op[]) {
  const { model: m, ops } = build(model, h);
  const pruned = checkLinearizable(m, ops, { deadlineMs: 10_000 });
  const plain = checkLinearizable(m, ops, { deadlineMs: 10_000, pruneCrashed: false });
  expect(pruned.valid).toBe(plain.valid);
  return pruned;
}

describe('pruning crashed ops that cannot matter', () => {
  it('drops a crashed write whose value nobody reads; the verdict stays valid', () => {
    const h = history(invoke(0, 'write', 1), info(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 0));
    const r = bothWays('register', h);
    expect(r).toMatchObject({ valid: true, prunedCrashed: 1 });
  });

  it('keeps a crashed write that is needed to explain a read: valid, and valid only because of it', () => {
    // p1 reads 1, which only the crashed write could have put there.
    const h = history(invoke(0, 'write', 1), info(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 1));
    const r = bothWays('register', h);
    expect(r).toMatchObject({ valid: true, prunedCrashed: 0 });
    // Without the crashed write the read is impossible: it was needed.
    expect(bothWays('register', history(invoke(1, 'read'), ok(1, 'read', 1))).valid).toBe(false);
  });

  it('drops an unread crashed write without hiding a real violation', () => {
    const h = history(
      invoke(0, 'write', 1),
      info(0, 'write', 1),
      invoke(1, 'write', 2),
      ok(1, 'write', 2),
      invoke(2, 'read'),
      ok(2, 'read', 0),
    );
    const r = bothWays('register', h);
    expect(r).toMatchObject({ valid: false, prunedCrashed: 1 });
  });

  it('dropping a crashed cas can free the crashed write it depended on (repeats to a fixed point)', () => {
    const h = history(
      invoke(0, 'write', 5),
      info(0, 'write', 5),
      invoke(1, 'cas', [5, 6]),
      info(1, 'cas', [5, 6]),
      invoke(2, 'read'),
      ok(2, 'read', 0),
    );
    expect(bothWays('cas-register', h)).toMatchObject({ valid: true, prunedCrashed: 2 });
  });

  it('keeps both when the cas’s new value is read: the write explains the cas, the cas explains the read', () => {
    const h = history(
      invoke(0, 'write', 5),
      info(0, 'write', 5),
      invoke(1, 'cas', [5, 6]),
      info(1, 'cas', [5, 6]),
      invoke(2, 'read'),
      ok(2, 'read', 6),
    );
    expect(bothWays('cas-register', h)).toMatchObject({ valid: true, prunedCrashed: 0 });
  });

  it('a crashed op that needs the state it leaves (cas 1 → 1) does not count as its own observer', () => {
    const { model, ops } = build(
      'cas-register',
      history(invoke(0, 'cas', [1, 1]), info(0, 'cas', [1, 1]), invoke(1, 'read'), ok(1, 'read', 0)),
    );
    expect(pruneCrashedOps(model, ops).pruned).toBe(1);
  });

  it('a crashed write placed only right before a read of its value still explains a read after a later write', () => {
    // The crashed write of 1 must take effect after the completed write of 2, just before the read of 1.
    const h = history(
      invoke(0, 'write', 1),
      info(0, 'write', 1),
      invoke(1, 'write', 2),
      ok(1, 'write', 2),
      invoke(2, 'read'),
      ok(2, 'read', 1),
    );
    expect(bothWays('register', h)).toMatchObject({ valid: true, prunedCrashed: 0 });
  });

  it('but one crashed write cannot explain two reads of its value with another write between', () => {
    const h = history(
      invoke(0, 'write', 1),
      info(0, 'write', 1),
      invoke(2, 'read'),
      ok(2, 'read', 1),
      invoke(1, 'write', 2),
      ok(1, 'write', 2),
      invoke(2, 'read'),
      ok(2, 'read', 1),
    );
    expect(bothWays('register', h).valid).toBe(false);
  });

  it('mutex: a crashed acquire that explains a later release is kept', () => {
    const h = history(invoke(0, 'acquire'), info(0, 'acquire'), invoke(1, 'release'), ok(1, 'release'));
    expect(bothWays('mutex', h)).toMatchObject({ valid: true, prunedCrashed: 0 });
  });

  it('leaves completed ops alone, and models without a footprint untouched', () => {
    const { model, ops } = build('register', history(invoke(0, 'write', 1), ok(0, 'write', 1)));
    expect(pruneCrashedOps(model, ops)).toEqual({ ops, pruned: 0 });
    const { footprint: _, ...bare } = model;
    const crashed = build('register', history(invoke(0, 'write', 1), info(0, 'write', 1))).ops;
    expect(pruneCrashedOps(bare, crashed).pruned).toBe(0);
  });
});

describe('the exponential case: many crashed ops and an impossible read', () => {
  // 30 rounds of: a crashed write of i, a completed write of i, a read of i; then a read of a value nobody
  // wrote. Each crashed write has an observer (the read), so it stays; but it is never needed (the completed
  // write explains the read), and once the read is placed it cannot help any more. Without pruning, each one
  // may be left out or placed in any later round: 2^30 ways to rule out.
  const h = history(
    ...Array.from({ length: 30 }, (_, i) => [
      invoke(100 + i, 'write', i + 1),
      info(100 + i, 'write', i + 1),
      invoke(300 + i, 'write', i + 1),
      ok(300 + i, 'write', i + 1),
      invoke(200 + i, 'read'),
      ok(200 + i, 'read', i + 1),
    ]).flat(),
    invoke(999, 'read'),
    ok(999, 'read', -1),
  );

  it('is decided invalid, quickly, with crashed ops whose readers are placed no longer tried', () => {
    const { model, ops } = build('register', h);
    const r = checkLinearizable(model, ops, { deadlineMs: 10_000 });
    expect(r.valid).toBe(false);
    expect(r.prunedCrashed).toBe(0);
    expect(r.configurations).toBeLessThan(1_000);
  });

  it('without pruning the same search fills a cap 100 times larger and says unknown', () => {
    const { model, ops } = build('register', h);
    const r = checkLinearizable(model, ops, { deadlineMs: 30_000, pruneCrashed: false, maxConfigurations: 100_000 });
    expect(r).toMatchObject({ valid: 'unknown', cause: 'memory' });
  });
});

describe('pruning never changes a verdict', () => {
  it('on 120 generated register histories with crashed writes (valid and invalid)', () => {
    const verdicts = { true: 0, false: 0 };
    for (let seed = 1; seed <= 120; seed++) {
      const { history: h } = generateCrashedRegisterHistory({
        ops: 24,
        processes: 4,
        crashRate: 0.4,
        seed,
        invalid: seed % 3 === 0,
      });
      const { model, ops } = build('register', h);
      const pruned = checkLinearizable(model, ops, { deadlineMs: 10_000 }).valid;
      const plain = checkLinearizable(model, ops, { deadlineMs: 10_000, pruneCrashed: false }).valid;
      if (pruned !== plain) throw new Error(`seed ${seed}: pruned ${pruned}, plain ${plain}\n${JSON.stringify(h)}`);
      verdicts[String(pruned) as 'true' | 'false']++;
    }
    expect(verdicts.true).toBeGreaterThan(20);
    expect(verdicts.false).toBeGreaterThan(20);
  });
});
