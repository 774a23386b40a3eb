import { describe, expect, it } from 'vitest';
import { PROMISE_CORPUS } from '../../test/support/promise-corpus.ts';
import { checkPromise, promiseLine } from './check-promise.ts';

const corpus = (name: string) => PROMISE_CORPUS.find((c) => c.name === name)!;

describe("the summary's promise line", () => {
  it('says unknown, and what is missing, when no hold had a known promise (a run recorded before lease terms)', () => {
    const c = corpus('a run recorded before lease terms: unknown');
    const line = promiseLine(checkPromise(c.ops, c.terms));
    expect(line).toMatch(/^promise: unknown — no hold's promise known: /);
    expect(line).not.toContain('0 broken');
  });

  it('counts the classes when promises were known', () => {
    const c = corpus("Kleppmann's pause, unfenced");
    expect(promiseLine(checkPromise(c.ops, c.terms))).toBe('promise: 0 broken · 1 outlived (pause-holder ×1)');
  });
});
