import { describe, expect, it } from 'vitest';
import { PROMISE_CORPUS, type PromiseCase } from '../../test/support/promise-corpus.ts';
import { checkPromise } from './check-promise.ts';
import type { PromiseMutant } from './promise-windows.ts';

/** The corpus cases a variant of the checker gets wrong: any overlap missed, added or classified otherwise. */
function misclassified(mutant: PromiseMutant): string[] {
  const wrong = (c: PromiseCase) => {
    const got = checkPromise(c.ops, c.terms, mutant).overlaps.map((o) => [o.a.process, o.b.process, o.class]);
    return JSON.stringify(got) !== JSON.stringify(c.expected);
  };
  return PROMISE_CORPUS.filter(wrong).map((c) => c.name);
}

describe('the corpus catches the mistakes a promise checker can make', () => {
  it('the checker itself misclassifies nothing', () => {
    expect(misclassified({})).toEqual([]);
  });

  it('leases counted from the completion, not the invoke: a slow acquire is blamed on the lock', () => {
    expect(misclassified({ fromCompletion: true })).toContain(
      'a slow acquire: the lease counts from its invoke, not its completion',
    );
  });

  it('renewals ignored: a grant inside a renewed lease is called the holder outliving it', () => {
    expect(misclassified({ ignoreRenewals: true })).toContain(
      'renewals extend the promise: a grant inside the renewed lease is the lock breaking it',
    );
  });

  it("only adjacent holds compared (kahuna's gap): a long hold's later, non-adjacent overlap is missed", () => {
    expect(misclassified({ adjacentOnly: true })).toContain('a long hold overlapping a later, non-adjacent one');
  });
});
