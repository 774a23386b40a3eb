import { describe, expect, it } from 'vitest';
import type { RunResults } from '../../checkers/run-results.ts';
import { checkPromise } from '../../checkers/promise/check-promise.ts';
import type { PromiseOverlap } from '../../checkers/promise/promise-overlaps.ts';
import { PROMISE_CORPUS } from '../../test/support/promise-corpus.ts';
import { RunIndex } from '../op-pairs.ts';
import { findings, headline } from './index.ts';
import { PROMISE_LINES, promiseFindings, overlapLine } from './promise.ts';

const ns = (ms: number) => ms * 1e6;
const side = (process: number, acquiredMs: number, releasedMs: number, window: [number, number] | null) => ({
  process,
  acquireIndex: process * 10 + 1,
  invokedAt: ns(acquiredMs - 1),
  acquiredAt: ns(acquiredMs),
  releasedAt: ns(releasedMs),
  window: window && { start: ns(window[0]), end: ns(window[1]) },
});

const broke: PromiseOverlap = {
  account: 0,
  class: 'broke',
  a: side(0, 1, 700, [0, 2000]),
  b: side(1, 501, 520, [500, 2500]),
  late: [],
  causes: ['restart-empty'],
  lateWrites: [],
  why: 'p1 was granted account 0 inside p0’s promise',
};
const outlived: PromiseOverlap = {
  account: 0,
  class: 'outlived',
  a: side(0, 1, 3009, [0, 2000]),
  b: side(1, 2100, 2300, [1500, 3500]),
  late: [0],
  causes: ['pause-holder'],
  lateWrites: [{ process: 0, invokeIndex: 14, writeId: 2 }],
  why: 'p0 went on past its promise',
};

const input = (overlaps: PromiseOverlap[], counts = { broke: 0, outlived: 0, 'own-clock': 0, unknown: 0 }) => ({
  index: new RunIndex([]),
  results: { checkers: { promise: { valid: counts.broke === 0, overlaps, counts } } } as unknown as Partial<RunResults>,
  faults: [],
  ttlMs: 2000,
  fencing: false,
  lock: 'redis',
});

describe('promise findings', () => {
  it('names the class, both holds (held and promised) and the fault active then, one line per overlap', () => {
    expect(overlapLine(broke)).toBe(
      'broke its promise — p0 (held 0.001 s → 0.700 s, promised 0.000 s → 2.000 s) and p1 (held 0.501 s → 0.520 s, promised 0.500 s → 2.500 s), account 0; cause: restart-empty.',
    );
    expect(overlapLine(outlived)).toBe(
      'outlived its lease — p0 (held 0.001 s → 3.009 s, promised 0.000 s → 2.000 s) and p1 (held 2.100 s → 2.300 s, promised 1.500 s → 3.500 s), account 0; late: p0; cause: pause-holder.',
    );
    expect(overlapLine({ ...outlived, causes: ['no fault'] })).toMatch(/; cause: no fault active\.$/);
  });

  it('a card per class: the broken promises bad, the outlived ones context, pointing at both acquires and the late write', () => {
    const found = promiseFindings(input([outlived, broke]));
    expect(found.map((f) => [f.id, f.severity, f.title])).toEqual([
      ['promise-broke', 'bad', 'The lock broke its promise once: it granted inside a lease it had promised'],
      [
        'promise-outlived',
        'note',
        "1 overlap where a holder outlived its lease (the holder's doing: what fencing is for)",
      ],
    ]);
    expect(found[1].ops).toEqual([1, 11, 14]);
    expect(found[0].fromMs).toBe(0);
    expect(found[0].toMs).toBe(2500);
  });

  it('counts the lines past the cap', () => {
    const many = Array.from({ length: PROMISE_LINES + 3 }, () => outlived);
    const [card] = promiseFindings(input(many));
    expect(card.sentences).toHaveLength(PROMISE_LINES + 1);
    expect(card.sentences.at(-1)).toBe('… and 3 more (results.json lists every one).');
    // The run's summary promises the report lists every broken promise.
    const [brokenCard] = promiseFindings(input(Array.from({ length: PROMISE_LINES + 3 }, () => broke)));
    expect(brokenCard.sentences).toHaveLength(PROMISE_LINES + 3);
  });

  it('from a history the checker classified: the broken promise leads the findings and the headline counts it', () => {
    const c = PROMISE_CORPUS.find((x) => x.name === 'a broken lock grants inside a live lease')!;
    const promise = checkPromise(c.ops, c.terms);
    const results = { valid: false, checkers: { promise } } as unknown as Partial<RunResults>;
    const all = findings({ ...input([]), index: new RunIndex(c.ops), results });
    expect(all[0].id).toBe('promise-broke');
    expect(all[0].sentences[0]).toBe(
      'broke its promise — p0 (held 0.001 s → 0.700 s, promised 0.001 s → 0.700 s) and p1 (held 0.501 s → 0.520 s, promised 0.501 s → 0.520 s), account 0; cause: no fault active.',
    );
    expect(headline(results, all)).toBe('1 broken promise');
  });
});
