import type { Judge } from '../judging/fault-shot.ts';
import { judgeServerPartition } from '../judging/server-partition.ts';

/** bridge acted when its drops held bytes between the sides, as every server↔server partition. */
export const judge: Judge<'bridge'> = judgeServerPartition;
