import type { Judge } from '../judging/fault-shot.ts';
import { judgeServerPartition } from '../judging/server-partition.ts';

/** majorities-ring acted when its drops held bytes between the sides, as every server↔server partition. */
export const judge: Judge<'majorities-ring'> = judgeServerPartition;
