import { describe, expect, it } from 'vitest';
import { PROMISE_CORPUS } from '../../test/support/promise-corpus.ts';
import { checkPromise } from './check-promise.ts';

/** The classes the checker gives a case's overlaps, as `[a, b, class]` in the corpus's spelling. */
function classes(c: (typeof PROMISE_CORPUS)[number]): [number, number, string][] {
  return checkPromise(c.ops, c.terms).overlaps.map((o) => [o.a.process, o.b.process, o.class]);
}

describe('the promise corpus', () => {
  it('has at least 30 labelled histories, every class among them', () => {
    expect(PROMISE_CORPUS.length).toBeGreaterThanOrEqual(30);
    const labels = new Set(PROMISE_CORPUS.flatMap((c) => c.expected.map((e) => e[2])));
    expect([...labels].sort()).toEqual(['broke', 'outlived', 'own-clock', 'unknown']);
  });

  it.each(PROMISE_CORPUS.map((c) => [c.name, c] as const))('%s', (_, c) => {
    expect(classes(c)).toEqual(c.expected);
  });

  it('is invalid exactly when a promise broke', () => {
    for (const c of PROMISE_CORPUS)
      expect(checkPromise(c.ops, c.terms).valid, c.name).toBe(!c.expected.some((e) => e[2] === 'broke'));
  });
});
