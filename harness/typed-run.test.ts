import { describe, expect, it } from 'vitest';
import { resolveConfig } from './run-argv.ts';
import { typedRun } from './typed-run.ts';

describe('a run built from typed options', () => {
  const options = {
    lock: 'etcd',
    concurrency: 1,
    accounts: 2,
    thinkMs: 0,
    nemesis: [],
    timeLimitS: 5,
    ttlMs: 2000,
    seed: 7,
    resultsDir: '/tmp/fencepost-typed-run',
  };

  it('records the argv a command line would give, in the order given', () => {
    expect(typedRun(options).argv).toEqual([
      '--lock=etcd',
      '--concurrency=1',
      '--accounts=2',
      '--think=0',
      '--nemesis=none',
      '--time-limit=5',
      '--ttl=2000',
      '--seed=7',
      '--results=/tmp/fencepost-typed-run',
    ]);
  });

  it('is what parsing that argv gives: parse(render(config)) == config', () => {
    const config = typedRun(options);
    expect(resolveConfig(config.argv)).toEqual(config);
  });

  it('is refused as the command line is', () => {
    expect(() => typedRun({ lock: 'redis', nemesis: ['pause-holder'], concurrency: 1 })).toThrow(
      'needs another client to take the lock',
    );
  });
});
