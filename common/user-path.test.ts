import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { userPath } from './user-path.ts';

describe('a path the user typed', () => {
  it('is read from the folder npm was run in (INIT_CWD), not the package root npm run moved to', () => {
    const bundle = path.join(process.cwd(), 'results', 'redlock', 'run-1', 'repro-redlock-run-1');
    expect(userPath('.', { INIT_CWD: bundle })).toBe(path.join('results', 'redlock', 'run-1', 'repro-redlock-run-1'));
    expect(userPath('../other', { INIT_CWD: bundle })).toBe(path.join('results', 'redlock', 'run-1', 'other'));
  });

  it('is itself when absolute, when npm did not start the process, or when the user stood in the root', () => {
    expect(userPath('/tmp/bundle', { INIT_CWD: '/elsewhere' })).toBe('/tmp/bundle');
    expect(userPath('./bundle', {})).toBe('./bundle');
    expect(userPath('.', { INIT_CWD: process.cwd() })).toBe('.');
  });
});
