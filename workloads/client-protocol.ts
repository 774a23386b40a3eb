import type pg from 'pg';
import type { OpInput } from '../harness/history/op.ts';
import type { WriteMode } from './resource.ts';
import type { LockContext } from './strategy.ts';

/** Everything a client process needs, sent once over IPC (the frozen run config stays in the harness). */
export interface ClientSpec {
  slot: number;
  concurrency: number;
  /** Strategy module URL (built-in or plugin). */
  strategyUrl: string;
  ctx: LockContext;
  pg: pg.ClientConfig;
  mode: WriteMode;
  thinkMs: number;
  accounts: number;
  watchdog: boolean;
  seed: number;
  /** A step that hasn't answered after this long is recorded as `info` and the client moves on as a new process. */
  stepTimeoutMs: number;
}

/**
 * Watchdog renewals run beside the client's main loop; Jepsen's rule (one open op per process) gives them a
 * process of their own: `WATCHDOG_PROCESS_OFFSET + p` is process p's watchdog.
 */
export const WATCHDOG_PROCESS_OFFSET = 100_000;

export type ToClient = { type: 'start'; spec: ClientSpec } | { type: 'stop' };
export type FromClient = { type: 'ready' } | { type: 'op'; op: OpInput } | { type: 'stopped' } | { type: 'log'; line: string };
