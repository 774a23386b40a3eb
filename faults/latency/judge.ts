import type { Judge } from '../judging/fault-shot.ts';
import { judgeBytes } from '../judging/bytes.ts';

/** latency acted when a client sent a byte through one of its proxies meanwhile. */
export const judge: Judge<'latency'> = judgeBytes('delayed');
