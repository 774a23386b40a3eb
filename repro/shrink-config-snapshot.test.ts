import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ShrinkDims } from './shrink-search.ts';
import { candidateConfig, candidateOptions } from './shrink-command.ts';

/**
 * The Config of a shrink candidate's run, from the stored run's argv and the candidate's own numbers: captured from
 * main as it built them by argv (`__snapshots__/shrink-config.txt`), so building them typed changes no field.
 */
const RESULTS = '/tmp/fencepost-shrink-config-snapshot';
afterAll(() => fs.rmSync(RESULTS, { recursive: true, force: true }));

const DIMS: ShrinkDims = {
  concurrency: 2,
  accounts: 1,
  faults: ['pause-holder'],
  shots: 1,
  timeLimitS: 5,
  thinkMs: 40,
};

/** A candidate's run as shrink builds it: its numbers, its own seed, the shrink's results folder. */
function candidate(stored: readonly string[], lock: string, d: ShrinkDims, seed: number) {
  return candidateConfig(stored, { ...candidateOptions(lock, d), seed, resultsDir: RESULTS });
}

describe("a shrink candidate's config", () => {
  it('is the one main built', () => {
    const cases: [string, readonly string[], string, ShrinkDims][] = [
      ['plain', ['--lock=redis', '--seed=4'], 'redis', DIMS],
      [
        'space forms and flags',
        ['--lock', 'etcd', '--ttl', '800', '--stop-on-lost-update', '--watchdog', '--think=90', '--shots', '7'],
        'etcd',
        { ...DIMS, faults: [], shots: null, concurrency: 3, accounts: 2 },
      ],
      [
        'every kept option',
        ['--fencing', '--pause=1500', '--restart-delay=900', '--max-stall=4000', '--nemesis-interval=2000'],
        'redis',
        { ...DIMS, faults: ['pause-holder', 'kill'], timeLimitS: 12 },
      ],
    ];
    const lines = cases.flatMap(([title, stored, lock, dims], i) => [
      `## ${title}: ${JSON.stringify(stored)}`,
      JSON.stringify(candidate(stored, lock, dims, 100 + i)),
    ]);
    expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__snapshots__/shrink-config.txt');
  });
});
