import { describe, expect, it } from 'vitest';
import { Shutdown } from '../common/shutdown.ts';
import { testResultsDir } from '../test/integration/processes.ts';
import { replay, replayOptionsOf } from './replay-command.ts';
import { replayInput } from './replay-input.ts';

/**
 * `replay` of a scenario file on real servers: its runs load the scenario's lock, and its summary says that lock —
 * it once printed "runs with --lock=redlock" (the option's default) for a scenario on advisory-lock-pgbouncer.
 */
describe('replay', () => {
  it("of scenarios/paused-holder.json: 2 of 2 reproduced, the summary naming the scenario's lock (redis)", async () => {
    const input = await replayInput('scenarios/paused-holder.json');
    const shutdown = new Shutdown();
    const lines: string[] = [];
    const { runs, summary } = await replay(
      input,
      replayOptionsOf({ seed: 7, resultsDir: testResultsDir('replay') }),
      2,
      shutdown,
      (l) => lines.push(l),
    );
    expect(lines[0]).toMatch(/^replay: paused-holder: 2 runs with --lock=redis,/);
    expect(summary.text).toContain('replay paused-holder: 2 runs with --lock=redis (seed ');
    expect(runs.filter((r) => r.followed && r.reproduced)).toHaveLength(2);
    expect(summary.json).toMatchObject({ lock: 'redis' });
  });
});
