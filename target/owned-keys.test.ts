import { describe, expect, it } from 'vitest';
import {
  formatOwnedKeys,
  idOfManifestKey,
  manifestKey,
  namespaceOf,
  newOwnedId,
  ownerMayLive,
  parseOwnedKeys,
  type OwnedKeys,
} from './owned-keys.ts';

const RECORD: OwnedKeys = {
  format: 1,
  id: 'run-mbx2k9q0-a1b2c3',
  target: 'payments-staging',
  keyPrefix: 'fp-ci/',
  namespace: 'fp-ci/run-mbx2k9q0-a1b2c3/',
  keys: ['fp-ci/run-mbx2k9q0-a1b2c3/lock:account-0', 'fp-ci/run-mbx2k9q0-a1b2c3/lock:account-1'],
  host: 'ci-7',
  pid: 4242,
  pidStart: 987654,
  startedAt: 1_765_000_000_000,
  until: 1_765_001_500_000,
};

describe('the record of the keys a run owns', () => {
  it('names its namespace and its key under the prefix', () => {
    expect(namespaceOf('fp-ci/', 'run-mbx2k9q0-a1b2c3')).toBe('fp-ci/run-mbx2k9q0-a1b2c3/');
    expect(manifestKey('fp-ci:', 'run-mbx2k9q0-a1b2c3')).toBe('fp-ci:fencepost-owned:run-mbx2k9q0-a1b2c3');
    expect(idOfManifestKey('fp-ci/fencepost-owned:run-mbx2k9q0-a1b2c3', 'fp-ci/')).toBe('run-mbx2k9q0-a1b2c3');
    expect(idOfManifestKey('fp-ci/fencepost-owned:../../x', 'fp-ci/')).toBeNull();
    expect(idOfManifestKey('fp-ci/lock:account-0', 'fp-ci/')).toBeNull();
    expect(newOwnedId(1_765_000_000_000)).toMatch(/^run-mitvfg1s-[0-9a-f]{6}$/);
  });

  it('reads back what it wrote', () => {
    expect(parseOwnedKeys(formatOwnedKeys(RECORD), 'fp-ci/')).toEqual(RECORD);
  });

  it('refuses a record that would widen what a cleanup deletes, or is not one', () => {
    const bad = (patch: Record<string, unknown>, prefix = 'fp-ci/') =>
      parseOwnedKeys(JSON.stringify({ ...RECORD, ...patch }), prefix);
    expect(bad({ namespace: 'fp-ci/' })).toBeNull();
    expect(bad({ keys: ['fp-ci/billing:invoice-1'] })).toBeNull();
    expect(bad({ keys: ['other-team:x'] })).toBeNull();
    expect(bad({ id: '../x' })).toBeNull();
    expect(bad({ format: 2 })).toBeNull();
    expect(bad({ pid: 'x' })).toBeNull();
    expect(bad({}, 'fp-ci:')).toBeNull();
    expect(parseOwnedKeys('{not json', 'fp-ci/')).toBeNull();
    expect(parseOwnedKeys('null', 'fp-ci/')).toBeNull();
  });

  it('a run on this machine lives as long as its harness; one on another, until its bound', () => {
    const alive = (pid: number, start: number) => pid === 4242 && start === 987654;
    expect(ownerMayLive(RECORD, { host: 'ci-7', now: RECORD.until + 1, alive })).toBe(true);
    expect(ownerMayLive(RECORD, { host: 'ci-7', now: RECORD.startedAt, alive: () => false })).toBe(false);
    expect(ownerMayLive(RECORD, { host: 'laptop', now: RECORD.until - 1, alive: () => false })).toBe(true);
    expect(ownerMayLive(RECORD, { host: 'laptop', now: RECORD.until, alive })).toBe(false);
  });
});
