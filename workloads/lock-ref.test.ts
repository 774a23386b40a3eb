import { describe, expect, it } from 'vitest';
import { lockFolderName } from '../store/results-store.ts';
import { isForeignRef, isPathRef, lockRef } from './lock-ref.ts';

describe('lockRef: what --lock names, by one rule', () => {
  it.each([
    ['all', 'all'],
    ['redis', 'builtin'],
    ['kazoo', 'builtin'],
    ['simple-redis-mutex', 'builtin'],
    ['./examples/my-lock.ts', 'plugin'],
    ['/abs/lock.mjs', 'plugin'],
    ['lock.js', 'plugin'],
    ['./locks/ours.json', 'manifest'],
    // A manifest path without ./ was a foreign lock to the loader but "unknown lock" to the option's check.
    ['locks/ours.json', 'manifest'],
    ['exec:./my-lock --flag', 'exec'],
    ['exec:locks/x.json', 'exec'],
    ['redsi', 'unknown'],
    ['x/../../etc', 'unknown'],
  ])('%s → %s', (lock, kind) => {
    expect(lockRef(lock).kind).toBe(kind);
  });

  it('says which are foreign and which are paths, and keeps the parts', () => {
    expect(lockRef('exec:./prog a b')).toEqual({ kind: 'exec', program: './prog a b' });
    expect(isForeignRef(lockRef('./x.json'))).toBe(true);
    expect(isForeignRef(lockRef('exec:./p'))).toBe(true);
    expect(isForeignRef(lockRef('kazoo'))).toBe(false);
    expect(isPathRef(lockRef('./x.ts'))).toBe(true);
    expect(isPathRef(lockRef('exec:./p'))).toBe(false);
  });

  it('names a results folder from it, never a path of folders', () => {
    expect(lockFolderName('redis')).toBe('redis');
    expect(lockFolderName('all')).toBe('all');
    // doctor and lock-check keep their runs under folders of their own names (CI: 'plugin-doctor' broke cleanup's test).
    expect(lockFolderName('doctor')).toBe('doctor');
    expect(lockFolderName('lock-check')).toBe('lock-check');
    expect(lockFolderName('./my/lock.ts')).toBe('plugin-lock');
    expect(lockFolderName('locks/ours.json')).toBe('plugin-ours_json');
    expect(lockFolderName('exec:./bin/my-lock')).toBe('plugin-my-lock');
    expect(lockFolderName('x/../../etc')).toBe('plugin-etc');
  });
});
