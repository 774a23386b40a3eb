import { describe, expect, it } from 'vitest';
import { ownerTokens } from './owner-tokens.ts';

describe('ownerTokens: unique per acquire, random per connection', () => {
  it('never repeats within a connection, and two connections share no value', () => {
    const a = ownerTokens();
    const b = ownerTokens();
    const fromA = Array.from({ length: 1000 }, a);
    const fromB = Array.from({ length: 1000 }, b);
    expect(new Set(fromA).size).toBe(1000);
    expect(fromA.filter((v) => fromB.includes(v))).toEqual([]);
    expect(fromA[0]).toMatch(/^[0-9a-f]{24}-1$/);
    expect(fromA[1]).toBe(`${fromA[0].slice(0, 24)}-2`);
  });
});
