import { describe, expect, it } from 'vitest';
import { readScenarioFile } from '../scenario/scenario-file.ts';
import { readExpect } from '../scenario/scenario-expect.ts';
import type { ReplayRun } from '../repro/replay-tally.ts';
import { LIBRARY_TURNS } from './nightly-library-sample.ts';
import { LOST_REPLY_CELLS, lostReplyCellsOf, lostReplyNightCell, lostReplyScenarioFile } from './lost-reply-cells.ts';

const run = (over: Partial<ReplayRun>): ReplayRun => ({
  runDir: 'results/redis/r1',
  verdict: true,
  followed: true,
  diverged: null,
  signature: null,
  findings: ['orphaned-lock'],
  reproduced: true,
  differently: false,
  said: 'orphaned lock on account 0 for 2.0 s',
  staleWritesRejected: 0,
  description: null,
  line: 'VALID, reproduced: orphaned lock on account 0 for 2.0 s',
  ...over,
});

describe("the rows' lost-reply cells", () => {
  it('are redis self-blocking, then curator and zookeeper idempotent, each on a scenario that drops a reply', () => {
    expect(LOST_REPLY_CELLS.map(({ lock, cell }) => `${lock} ${cell.id} ${JSON.stringify(cell.expect)}`)).toEqual([
      'redis lost-reply-acquire {"checker":"lost-replies","anomaly":"orphaned-lock"}',
      'zookeeper lost-reply-create "clean"',
      'curator lost-reply-create "clean"',
    ]);
    for (const { lock, cell } of LOST_REPLY_CELLS) {
      const read = readScenarioFile(lostReplyScenarioFile(cell));
      if (!('scenario' in read)) throw new Error(`${cell.scenario}: ${read.problems.join('; ')}`);
      expect(
        read.scenario.faults.some((f) => f.startsWith('reply-loss')),
        cell.scenario,
      ).toBe(true);
      // The scenario written for a row says what that row predicts: replay of the file counts the same.
      if (read.scenario.lock === lock) expect(read.scenario.expect, cell.scenario).toEqual(cell.expect);
      expect(cell.why.length, cell.id).toBeGreaterThan(100);
      expect(readExpect(cell.expect), cell.id).toEqual({ expect: cell.expect });
    }
  });

  it('take turns: one a night while there are three, every one within LIBRARY_TURNS nights', () => {
    const turns = Array.from({ length: LIBRARY_TURNS }, (_, t) => lostReplyCellsOf(t));
    expect(turns.map((t) => t.length)).toEqual([1, 1, 1]);
    expect(turns.flat()).toEqual(expect.arrayContaining([...LOST_REPLY_CELLS]));
    expect(lostReplyCellsOf('all')).toEqual(LOST_REPLY_CELLS);
  });

  it('a night cell matches when every run that followed its script showed the prediction', () => {
    const { lock, cell } = LOST_REPLY_CELLS[0];
    const at = { index: 90, lock, cell, seed: 7, wallMs: 15_000 };
    const matched = lostReplyNightCell(at, [run({}), run({}), run({ followed: false, reproduced: false })]);
    expect(matched).toMatchObject({
      index: 90,
      lock: 'redis',
      column: "lost reply: acquire's reply lost (self-blocking)",
      expected: 'safe',
      observed: 'safe',
      matched: true,
      decided: 'measured',
    });
    expect(matched.note).toBe(
      'predicted lost-replies/orphaned-lock (a liveness finding: the verdict may be VALID): as predicted 2/2 (Wilson 95 %: 34–100 %); 1 of 3 runs could not follow the script',
    );
    const missed = lostReplyNightCell(at, [
      run({}),
      run({ reproduced: false, findings: [], line: 'VALID: no failure (stale writes rejected: 0)' }),
    ]);
    expect(missed).toMatchObject({ observed: 'invalid', matched: false });
    expect(missed.note).toContain('as predicted 1/2');
    expect(missed.note).toContain('; VALID: no failure (stale writes rejected: 0);');
    const lost = lostReplyNightCell(at, [
      run({
        reproduced: false,
        verdict: false,
        signature: { checker: 'lost-updates', anomaly: 'lost-update', story: null },
      }),
    ]);
    expect(lost).toMatchObject({ observed: 'lost', matched: false, lostUpdates: 1 });
    expect(lostReplyNightCell(at, [run({ followed: false, reproduced: false })])).toMatchObject({
      observed: 'unknown',
      matched: false,
    });
  });
});
