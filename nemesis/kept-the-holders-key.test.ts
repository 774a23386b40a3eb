import { describe, expect, it } from 'vitest';
import { keptTheHoldersKey } from '../faults/restart-empty/inject.ts';

/** Whether a target's restart kept the holder's key, from the values read when the fault struck and after the restart. */
describe('keptTheHoldersKey', () => {
  const before = { r0: { 'fp-test/lock:account-0': 'p3-token-a' } };

  it('the same key with the same value after the restart: kept (the lock passes this shot)', () => {
    expect(keptTheHoldersKey(before, { r0: { 'fp-test/lock:account-0': 'p3-token-a' } })).toBe(true);
  });

  it("the same key with another holder's value: emptied, then granted again (CI read this as kept)", () => {
    expect(keptTheHoldersKey(before, { r0: { 'fp-test/lock:account-0': 'p1-token-b' } })).toBe(false);
  });

  it('no key after the restart: emptied', () => {
    expect(keptTheHoldersKey(before, {})).toBe(false);
    expect(keptTheHoldersKey(before, { r0: {} })).toBe(false);
  });

  it('a value that could not be read is compared by the key alone', () => {
    expect(keptTheHoldersKey({ r0: { k: null } }, { r0: { k: 'v' } })).toBe(true);
    expect(keptTheHoldersKey(before, { r0: { 'fp-test/lock:account-0': null } })).toBe(true);
  });
});
