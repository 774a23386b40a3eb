import { describe, expect, it } from 'vitest';
import { parseArgv } from '../harness/option-table.ts';
import { REPLAY_OPTIONS } from '../harness/reproduce-options.ts';
import { passedOnOf, replayBase, replayRunConfig } from './replay-command.ts';

/** A replay's base Config from its command line's options, as replayCommand passes them on. */
function baseOf(args: readonly string[]) {
  const { values, spelled } = parseArgv(args, REPLAY_OPTIONS, { words: 'collect' });
  return replayBase('/tmp/s.json', passedOnOf(values, spelled));
}

describe("a replay run's config", () => {
  it('replaces a space-form --seed with its own, leaving no stray value behind', () => {
    const config = replayRunConfig(baseOf(['--seed', '5', '--ttl', '900', '--fencing', '--runs=3']), 9);
    expect(config.argv).toEqual(['--ttl', '900', '--fencing', '--seed=9', '--scenario=/tmp/s.json']);
    expect(config).toMatchObject({ seed: 9, ttlMs: 900, fencing: true, scenario: '/tmp/s.json' });
  });

  it('keeps the command line as given otherwise', () => {
    const config = replayRunConfig(baseOf(['--lock=redis', '--seed=5']), 3);
    expect(config.argv).toEqual(['--lock=redis', '--seed=3', '--scenario=/tmp/s.json']);
    expect(config).toMatchObject({ lock: 'redis', seed: 3 });
  });
});
