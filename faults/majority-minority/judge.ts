import type { Judge } from '../judging/fault-shot.ts';
import { judgeServerPartition } from '../judging/server-partition.ts';

/** majority-minority acted when its drops held bytes between the sides, as every server↔server partition. */
export const judge: Judge<'majority-minority'> = judgeServerPartition;
