import { MAX_RERUNS } from '../matrix/oracle.ts';
import { expectationsPath, loadExpectations } from './expectations.ts';
import type { NightlyConfig } from './nightly-config.ts';
import { libraryTurnOf } from './nightly-library-sample.ts';
import { cellWeightS, nightlyPlan, shardSlice } from './nightly-plan.ts';
import { nightMatrix } from './nightly.ts';

/** Beyond its cells' time, what a shard may take to be scheduled, pull its image and start (s). */
export const SHARD_START_S = 15 * 60;

/**
 * How long an emitted night's shard may run (s): its heaviest shard's cells, each at its time limit and overhead
 * (the weights the split itself uses: nightly-plan.ts), run as often as a cell can be (--runs, and every rerun an
 * undecided run may take), one at a time, plus SHARD_START_S. A bound, not an estimate: the merge waits this long at
 * most (audit R10: it used to poll 12 h for a shard that would never write).
 */
export function shardBound(config: Readonly<NightlyConfig>): number {
  const { matrix } = nightMatrix(config);
  const file = expectationsPath(config.expectations);
  const user = file ? loadExpectations(file) : [];
  const plan = nightlyPlan(user, matrix.matrix, libraryTurnOf(matrix.seed))
    .filter((p) => config.cells === 'all' || p.from !== 'oracle')
    .map((p, index) => ({ ...p, index }));
  let heaviest = 0;
  for (let index = 1; index <= config.shards; index++) {
    const slice = shardSlice(plan, { index, count: config.shards }, matrix.timeLimitS);
    const load = slice
      .filter((p) => p.oracle.decided === 'measured')
      .reduce((s, p) => s + cellWeightS(p, matrix.timeLimitS), 0);
    heaviest = Math.max(heaviest, load);
  }
  return SHARD_START_S + (matrix.runs + MAX_RERUNS) * heaviest;
}
