import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../harness/run-argv.ts';
import { replayRunArgv } from './replay-command.ts';

describe("a replay run's argv", () => {
  it('replaces a space-form --seed with its own, leaving no stray value behind', () => {
    const base = resolveConfig(['--seed', '5', '--ttl', '900', '--fencing', '--scenario=/tmp/s.json']);
    const argv = replayRunArgv(base, 9, '/tmp/s.json');
    expect(argv).toEqual(['--ttl', '900', '--fencing', '--seed=9', '--scenario=/tmp/s.json']);
    expect(resolveConfig(argv)).toMatchObject({ seed: 9, ttlMs: 900, fencing: true, scenario: '/tmp/s.json' });
  });

  it('keeps the command line as given otherwise', () => {
    const base = resolveConfig(['--lock=redis', '--seed=5', '--scenario=/tmp/s.json']);
    expect(replayRunArgv(base, 3, '/tmp/s.json')).toEqual(['--lock=redis', '--seed=3', '--scenario=/tmp/s.json']);
  });
});
