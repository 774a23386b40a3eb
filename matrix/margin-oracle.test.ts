import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../harness/run-argv.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import { cellConfig } from './cell-config.ts';
import { shapeOf } from './cell-decision.ts';
import { MARGINS, marginPlan } from './margin-oracle.ts';
import { matrixPlan } from './matrix.ts';

/** The margin cells: each lock's own, predicted before any run, and run by the matrix for that lock alone. */
describe('margin cells', () => {
  it('are the four renewers at both sides of their thresholds, and Curator under the strobe', () => {
    expect(MARGINS.map(({ lock, margin }) => `${lock} ${margin.id} ${margin.cell.expect}`)).toEqual([
      'redis margin-server-x2-watchdog safe',
      'redis margin-server-x4-watchdog lost',
      'curator margin-strobe-partition safe',
      'redlock-v4 margin-client-x0.5 lost',
      'redlock-v4 margin-client-x0.99 safe',
      'redis-semaphore margin-client-x0.6 lost',
      'redis-semaphore margin-client-x0.95 safe',
      'dynamodb-lock-client margin-heartbeat-x0.15 lost',
      'dynamodb-lock-client margin-heartbeat-x0.45 safe',
    ]);
  });

  it('each is measured, with the reason for its prediction and the threshold it sits beside', () => {
    for (const { lock, margin } of MARGINS) {
      expect(margin.cell.why?.length, `${lock} ${margin.id}`).toBeGreaterThan(100);
      expect(margin.threshold, `${lock} ${margin.id}`).not.toBe('');
    }
    expect(new Set(MARGINS.map((m) => m.margin.id)).size).toBe(MARGINS.length);
  });

  it('come after both tables in the plan, one cell each, only for the lock that declares it', () => {
    const plan = matrixPlan('all');
    const margins = plan.filter((p) => p.col.table === 'margins');
    expect(margins.map((p) => `${p.lock} ${p.col.id}`)).toEqual(MARGINS.map((m) => `${m.lock} ${m.margin.id}`));
    expect(plan.slice(-margins.length)).toEqual(margins);
    expect(matrixPlan('margins')).toHaveLength(MARGINS.length);
    expect(matrixPlan('faults').some((p) => p.col.table === 'margins')).toBe(false);
  });

  it("run at the margin's rate, section and accounts whatever the user gave, for at least 20 s, and the CLI takes each", async () => {
    const m = resolveConfig(['--lock=all', '--seed=3', '--think=40', '--clock-rate=7', '--accounts=5']);
    const configs = await Promise.all(
      marginPlan().map(async ({ lock, col }) => cellConfig(m, shapeOf(col, await loadStrategy(lock), 3))),
    );
    expect(configs.map((c) => [c.lock, c.nemesis?.join(','), c.clockRate, c.thinkMs, c.accounts, c.watchdog])).toEqual([
      ['redis', 'clock-rate', 2, 1400, 2, true],
      ['redis', 'clock-rate', 4, 600, 2, true],
      ['curator', 'clock-strobe,partition', 2, 100, 2, false],
      ['redlock-v4', 'clock-rate-client', 0.5, 1400, 2, false],
      ['redlock-v4', 'clock-rate-client', 0.99, 1400, 2, false],
      ['redis-semaphore', 'clock-rate-client', 0.6, 1400, 2, false],
      ['redis-semaphore', 'clock-rate-client', 0.95, 2400, 2, false],
      ['dynamodb-lock-client', 'clock-rate-client', 0.15, 1400, 2, false],
      ['dynamodb-lock-client', 'clock-rate-client', 0.45, 2400, 2, false],
    ]);
    expect(configs.every((c) => c.timeLimitS >= 20)).toBe(true);
    // A margin that needs the rate to last past the default 3 s says so: dynamodb-lock-client's stretched heartbeats.
    expect(configs.map((c) => c.pauseMs)).toEqual([3000, 3000, 3000, 3000, 3000, 3000, 3000, 8000, 8000]);
  });
});
