import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../history/fault-names.ts';
import { runNemesis } from '../test/support/nemesis-test-kit.ts';

describe('--lock=postgres under every fault', () => {
  it('is its own fence: no lost update, whatever applies is injected, the rest is said to be n/a', async () => {
    const run = await runNemesis([
      '--lock=postgres',
      `--nemesis=${FAULT_NAMES.join(',')}`,
      '--pause=1000',
      '--nemesis-interval=300',
      '--time-limit=20',
    ]);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    const injected = new Set(run.faults.filter((o) => o.value.phase === 'start').map((o) => o.f));
    for (const f of [
      'pause-holder',
      'pause-client',
      'pause-node',
      'kill',
      'clock',
      'clock-strobe',
      'partition',
      'latency',
      'delay-write',
    ])
      expect(injected, run.summary).toContain(f);
    for (const f of ['restart-empty', 'failover'])
      expect(run.log.some((l) => l.includes(`${f} does not apply`))).toBe(true);
    // Every start has its end: teardown left nothing faulted.
    expect(run.outcome.results.faults.every((f) => f.end !== null)).toBe(true);
    expect(run.leftovers).toEqual([]);
  });
});
