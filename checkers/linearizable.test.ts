import { describe, expect, it } from 'vitest';
import type { Op } from '../history/op.ts';
import { checkLinearizable } from './linearizable.ts';
import type { AnyModel, Operation } from './model.ts';
import { historyModel } from './models/registry.ts';
import { registerModel } from './models/register.ts';
import { fail, history, info, invoke, ok } from '../test/support/test-history.ts';

function check(model: string, h: Op[], opts: { initial?: unknown; deadlineMs?: number } = {}) {
  const { model: m, ops } = historyModel(model)!.build(h, { initial: 'initial' in opts ? opts.initial : 0 });
  return checkLinearizable(m, ops, { deadlineMs: opts.deadlineMs ?? 10_000 });
}

describe('register: textbook histories (initial value 0)', () => {
  const cases: { name: string; valid: boolean; h: Op[] }[] = [
    {
      name: 'sequential write then read of it',
      valid: true,
      h: history(invoke(0, 'write', 1), ok(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 1)),
    },
    {
      name: 'stale read: a read after a completed write returns the old value',
      valid: false,
      h: history(invoke(0, 'write', 1), ok(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 0)),
    },
    {
      name: 'a read concurrent with a write may see either value (old)',
      valid: true,
      h: history(invoke(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 0), ok(0, 'write', 1)),
    },
    {
      name: 'a read concurrent with a write may see either value (new)',
      valid: true,
      h: history(invoke(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 1), ok(0, 'write', 1)),
    },
    {
      name: 'new-old inversion: one read sees the write, a later read does not',
      valid: false,
      h: history(
        invoke(0, 'write', 1),
        invoke(1, 'read'),
        ok(1, 'read', 1),
        invoke(2, 'read'),
        ok(2, 'read', 0),
        ok(0, 'write', 1),
      ),
    },
    {
      name: 'reads of two concurrent writes in opposite orders by different readers',
      valid: false,
      h: history(
        invoke(0, 'write', 1),
        invoke(1, 'write', 2),
        invoke(2, 'read'),
        ok(2, 'read', 1),
        invoke(2, 'read'),
        ok(2, 'read', 2),
        invoke(3, 'read'),
        ok(3, 'read', 2),
        invoke(3, 'read'),
        ok(3, 'read', 1),
        ok(0, 'write', 1),
        ok(1, 'write', 2),
      ),
    },
    {
      name: 'a value nobody wrote',
      valid: false,
      h: history(invoke(0, 'write', 1), ok(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 7)),
    },
    {
      name: 'a failed write did not happen, so nobody may read it',
      valid: false,
      h: history(invoke(0, 'write', 1), fail(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 1)),
    },
  ];
  it.each(cases)('$name → $valid', ({ h, valid }) => {
    expect(check('register', h).valid).toBe(valid);
  });
});

describe('ops that never completed (info)', () => {
  it('an info write may take effect long after its call, even after later ops completed', () => {
    // p0's write times out; p1 reads 0, then later reads 1: the write landed between the reads.
    const h = history(
      invoke(0, 'write', 1),
      info(0, 'write', 1),
      invoke(1, 'read'),
      ok(1, 'read', 0),
      invoke(1, 'read'),
      ok(1, 'read', 0),
      invoke(1, 'read'),
      ok(1, 'read', 1),
    );
    expect(check('register', h).valid).toBe(true);
  });

  it('the same history with the write ok is not linearizable: an ok write is done when it returns', () => {
    const h = history(
      invoke(0, 'write', 1),
      ok(0, 'write', 1),
      invoke(1, 'read'),
      ok(1, 'read', 0),
      invoke(1, 'read'),
      ok(1, 'read', 1),
    );
    const r = check('register', h);
    expect(r.valid).toBe(false);
    expect(r.counterexample?.op.indexes).toEqual([2, 3]);
  });

  it('an info write may never take effect at all', () => {
    const h = history(invoke(0, 'write', 1), info(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 0));
    expect(check('register', h).valid).toBe(true);
  });

  it('an invocation with no completion at all counts as info', () => {
    const h = history(invoke(0, 'write', 1), invoke(1, 'read'), ok(1, 'read', 0), invoke(1, 'read'), ok(1, 'read', 1));
    expect(check('register', h).valid).toBe(true);
  });

  it('but an info write cannot take effect before it was invoked', () => {
    const h = history(invoke(1, 'read'), ok(1, 'read', 1), invoke(0, 'write', 1), info(0, 'write', 1));
    expect(check('register', h).valid).toBe(false);
  });
});

describe('cas-register', () => {
  it('a successful cas needs the old value; a failed cas did not happen', () => {
    const h = history(
      invoke(0, 'write', 1),
      ok(0, 'write', 1),
      invoke(1, 'cas', [0, 5]),
      fail(1, 'cas', [0, 5]),
      invoke(2, 'cas', [1, 2]),
      ok(2, 'cas', [1, 2]),
      invoke(0, 'read'),
      ok(0, 'read', 2),
    );
    expect(check('cas-register', h).valid).toBe(true);
  });

  it('a cas that succeeded from a value the register did not hold is a violation, named in the counterexample', () => {
    const h = history(invoke(0, 'write', 1), ok(0, 'write', 1), invoke(1, 'cas', [3, 4]), ok(1, 'cas', [3, 4]));
    const r = check('cas-register', h);
    expect(r.valid).toBe(false);
    expect(r.counterexample?.op.description).toBe('cas 3 → 4');
    expect(r.counterexample?.state).toBe('register = 1');
    expect(r.counterexample?.message).toContain('in which the op is impossible');
  });

  it('an info cas may have succeeded late', () => {
    const h = history(
      invoke(1, 'cas', [0, 4]),
      info(1, 'cas', [0, 4]),
      invoke(0, 'read'),
      ok(0, 'read', 0),
      invoke(0, 'read'),
      ok(0, 'read', 4),
    );
    expect(check('cas-register', h).valid).toBe(true);
  });

  it('reads of nil/null are unknown reads (Knossos semantics) and match anything', () => {
    const h = history(invoke(0, 'write', 3), ok(0, 'write', 3), invoke(1, 'read'), ok(1, 'read', null));
    expect(check('cas-register', h).valid).toBe(true);
  });

  it('starts from nil unless told otherwise', () => {
    const h = history(invoke(0, 'cas', [0, 1]), ok(0, 'cas', [0, 1]));
    expect(check('cas-register', h, { initial: null }).valid).toBe(false);
    expect(check('cas-register', h, { initial: 0 }).valid).toBe(true);
  });
});

describe('mutex', () => {
  const cases: { name: string; valid: boolean; h: Op[] }[] = [
    {
      name: 'acquire, release, acquire',
      valid: true,
      h: history(
        invoke(0, 'acquire'),
        ok(0, 'acquire'),
        invoke(0, 'release'),
        ok(0, 'release'),
        invoke(1, 'acquire'),
        ok(1, 'acquire'),
      ),
    },
    {
      name: 'two clients acquire with no release between',
      valid: false,
      h: history(invoke(0, 'acquire'), ok(0, 'acquire'), invoke(1, 'acquire'), ok(1, 'acquire')),
    },
    {
      name: 'a release of a lock nobody holds',
      valid: false,
      h: history(invoke(0, 'release'), ok(0, 'release')),
    },
    {
      name: 'a second acquire concurrent with the release may be ordered after it',
      valid: true,
      h: history(
        invoke(0, 'acquire'),
        ok(0, 'acquire'),
        invoke(1, 'acquire'),
        invoke(0, 'release'),
        ok(1, 'acquire'),
        ok(0, 'release'),
      ),
    },
    {
      name: 'an acquire that timed out may never have happened',
      valid: true,
      h: history(invoke(0, 'acquire'), info(0, 'acquire'), invoke(1, 'acquire'), ok(1, 'acquire')),
    },
    {
      name: 'a failed acquire did not happen',
      valid: true,
      h: history(
        invoke(0, 'acquire'),
        ok(0, 'acquire'),
        invoke(1, 'acquire'),
        fail(1, 'acquire', null, 'not-acquired'),
      ),
    },
    {
      name: 'one lock per account: holding account 0 does not block account 1',
      valid: true,
      h: history(
        invoke(0, 'acquire', { account: 0 }),
        ok(0, 'acquire', { account: 0 }),
        invoke(1, 'acquire', { account: 1 }),
        ok(1, 'acquire', { account: 1 }),
      ),
    },
    {
      name: 'a release that reports released: false released nothing',
      valid: false,
      h: history(
        invoke(0, 'acquire', { account: 0 }),
        ok(0, 'acquire', { account: 0 }),
        invoke(0, 'release', { account: 0 }),
        ok(0, 'release', { account: 0, released: false }),
        invoke(1, 'acquire', { account: 0 }),
        ok(1, 'acquire', { account: 0 }),
      ),
    },
  ];
  it.each(cases)('$name → $valid', ({ h, valid }) => {
    expect(check('mutex', h).valid).toBe(valid);
  });
});

describe('deadline', () => {
  // Twelve writes of distinct values all overlap, then a read of a value none of them wrote: to prove it
  // impossible the search must try every subset of the writes (memoisation bounds it at 2^12 × 13 states,
  // still far more than a millisecond's work with a clock that ticks 1 ms per look).
  const hard = (readValue: number) =>
    history(
      ...Array.from({ length: 12 }, (_, p) => invoke(p, 'write', p + 1)),
      invoke(20, 'read'),
      ok(20, 'read', readValue),
      ...Array.from({ length: 12 }, (_, p) => ok(p, 'write', p + 1)),
    );

  it('a search that runs out of time says unknown, never valid or invalid', () => {
    let t = 0;
    const now = () => (t += 1);
    const { model, ops } = historyModel('register')!.build(hard(99), { initial: 0 });
    const r = checkLinearizable(model, ops, { deadlineMs: 1, now });
    expect(r.valid).toBe('unknown');
    expect(r.cause).toBe('timeout');
  });

  it('a valid history that runs out of time is unknown too, not valid', () => {
    let t = 0;
    const now = () => (t += 1);
    const { model, ops } = historyModel('register')!.build(hard(5), { initial: 0 });
    expect(checkLinearizable(model, ops, { deadlineMs: 1, now }).valid).toBe('unknown');
    expect(checkLinearizable(model, ops, { deadlineMs: 10_000 }).valid).toBe(true);
  });

  it('a search that reaches its memory cap says unknown too', () => {
    const { model, ops } = historyModel('register')!.build(hard(99), { initial: 0 });
    const r = checkLinearizable(model, ops, { maxConfigurations: 100 });
    expect(r).toMatchObject({ valid: 'unknown', cause: 'memory', configurations: 100 });
  });

  it('with the real clock and a tiny deadline, the hard history is unknown; given time it is invalid', () => {
    const { model, ops } = historyModel('register')!.build(hard(99), { initial: 0 });
    expect(checkLinearizable(model, ops, { deadlineMs: 0.01 }).valid).toBe('unknown');
    expect(checkLinearizable(model, ops, { deadlineMs: 30_000 }).valid).toBe(false);
  });
});

describe('memoisation of timed-out ops', () => {
  it('treats identical timed-out ops as interchangeable: k of them cost k+1 configurations, not 2^k', () => {
    // 24 clients each time out writing 1, then a read sees 2, which nobody wrote. To prove that, the search
    // must rule out every way of placing the writes; naming them would give 2^24 configurations.
    const h = history(
      ...Array.from({ length: 24 }, (_, p) => [invoke(p, 'write', 1), info(p, 'write', 1)]).flat(),
      invoke(99, 'read'),
      ok(99, 'read', 2),
    );
    const r = check('register', h, { deadlineMs: 20_000 });
    expect(r.valid).toBe(false);
    expect(r.explored).toBeLessThan(1_000);
  });
});

describe('counterexample', () => {
  it('names the op that cannot be placed, the state it met, and a window of history indexes around it', () => {
    const h = history(
      invoke(0, 'write', 1), // 0
      ok(0, 'write', 1), // 1
      invoke(1, 'write', 2), // 2
      invoke(2, 'read'), // 3
      ok(2, 'read', 3), // 4: nobody wrote 3
      ok(1, 'write', 2), // 5
      invoke(3, 'read'), // 6
      ok(3, 'read', 2), // 7
    );
    const r = check('register', h);
    expect(r.valid).toBe(false);
    const cx = r.counterexample!;
    expect(cx.op).toEqual({ process: 2, description: 'read 3', indexes: [3, 4] });
    expect(cx.window).toContain(3);
    expect(cx.window).toContain(2); // the concurrent write is part of the story
    expect(cx.window).not.toContain(6); // the read after it is not
    expect([...cx.overlapping, ...cx.concurrent].map((r) => r.description)).toContain('write 2');
    expect(cx.message).toMatch(/^op #3 \(process 2: read 3\) cannot be linearized/);
  });
});

/**
 * The memo key stores only the part of the linearized set above the first unplaced op (see linearizable.ts).
 * If that were wrong, the search would wrongly prune; compare it against a brute-force search that tries every
 * order, on many small random histories.
 */
describe('agrees with brute force on random small histories', () => {
  function bruteForce(model: AnyModel, ops: Operation[]): boolean {
    const n = ops.length;
    const search = (placed: number, state: unknown): boolean => {
      if (ops.every((op, i) => op.return === Infinity || placed & (1 << i))) return true;
      for (let i = 0; i < n; i++) {
        if (placed & (1 << i)) continue;
        // i may go next only if no unplaced completed op returned before i was called.
        const blocked = ops.some(
          (y, j) => j !== i && !(placed & (1 << j)) && y.return !== Infinity && y.return < ops[i].call,
        );
        if (blocked) continue;
        const [okStep, next] = model.step(state, ops[i].input, ops[i].output);
        if (okStep && search(placed | (1 << i), next)) return true;
      }
      return false;
    };
    return search(0, model.init());
  }

  function randomHistory(seed: number): Op[] {
    let s = seed;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const events: ReturnType<typeof invoke>[] = [];
    const open = new Map<number, { f: string; value: unknown }>();
    let started = 0;
    while (started < 7 || open.size > 0) {
      const p = Math.floor(rnd() * 3);
      const pending = open.get(p);
      if (pending) {
        open.delete(p);
        const r = rnd();
        const value = pending.f === 'read' ? Math.floor(rnd() * 3) : pending.value;
        if (r < 0.12) events.push(info(p, pending.f, pending.value));
        else if (r < 0.2 && pending.f === 'cas') events.push(fail(p, pending.f, pending.value));
        else events.push(ok(p, pending.f, value));
      } else if (started < 7) {
        started++;
        const r = rnd();
        const f = r < 0.4 ? 'read' : r < 0.75 ? 'write' : 'cas';
        const value =
          f === 'read' ? null : f === 'write' ? Math.floor(rnd() * 3) : [Math.floor(rnd() * 3), Math.floor(rnd() * 3)];
        open.set(p, { f, value });
        events.push(invoke(p, f, value));
      }
    }
    // Ops after an info must use a new process id (Jepsen's rule); renumber per op to keep it simple.
    let next = 100;
    const renamed = new Map<number, number>();
    return history(
      ...events.map((e) => {
        const p = e.process as number;
        if (e.type === 'invoke') renamed.set(p, next++);
        return { ...e, process: renamed.get(p)! };
      }),
    );
  }

  it('on 400 random cas-register histories', () => {
    let valid = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const h = randomHistory(seed);
      const { model, ops } = historyModel('cas-register')!.build(h, { initial: 0 });
      const expected = bruteForce(model, ops);
      const got = checkLinearizable(model, ops).valid;
      if (got !== expected)
        throw new Error(`seed ${seed}: search says ${got}, brute force ${expected}\n${JSON.stringify(h)}`);
      if (expected) valid++;
    }
    // Both verdicts must be well represented, or the comparison proves little.
    expect(valid).toBeGreaterThan(40);
    expect(valid).toBeLessThan(360);
  });

  it('the register model used directly, without a registry', () => {
    const model = registerModel(0);
    const ops: Operation[] = [
      { process: 0, input: { f: 'write', value: 1 }, output: 1, call: 0, return: 3, indexes: [0, 3] },
      { process: 1, input: { f: 'read', value: 1 }, output: 1, call: 1, return: 2, indexes: [1, 2] },
    ];
    expect(checkLinearizable(model, ops).valid).toBe(true);
  });
});
