import type { FaultName } from '../fault-names.ts';
import type { Judge } from './fault-shot.ts';
import { killHolder, pauseHolder } from './aimed.ts';
import { judgeBytes } from './bytes.ts';
import { clockStrobe } from './clock.ts';
import { delayWrite } from './delay-write.ts';
import { kill, leaderChurn, pauseClient, pauseNode } from './lifecycle.ts';
import { clock, failover, killSession, restartEmpty } from './server-story.ts';
import { judgeServerPartition } from './server-partition.ts';

/** A judge per fault of the catalogue, each reading its own fault's evidence: a new fault without one does not compile. */
export type JudgeTable = { readonly [F in FaultName]: Judge<F> };

/**
 * What each fault must show for a shot to count. A fault with a story in its catalogue row (aimed.ts,
 * server-story.ts, delay-write.ts) is judged by its story; the others by what their own records show.
 */
export const JUDGES = {
  'pause-holder': pauseHolder,
  'kill-holder': killHolder,
  'restart-empty': restartEmpty,
  clock,
  failover,
  'kill-session': killSession,
  'delay-write': delayWrite,
  'pause-node': pauseNode,
  'leader-churn': leaderChurn,
  'pause-client': pauseClient,
  kill,
  partition: judgeBytes('held'),
  'isolate-leader': judgeServerPartition,
  'majority-minority': judgeServerPartition,
  bridge: judgeServerPartition,
  'majorities-ring': judgeServerPartition,
  latency: judgeBytes('delayed'),
  'clock-strobe': clockStrobe,
} satisfies JudgeTable;
