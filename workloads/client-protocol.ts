import type pg from 'pg';
import type { SentOp } from './op-outbox.ts';
import type { WriteMode } from './resource.ts';
import type { ForeignCommand } from './foreign/manifest.ts';
import type { LockContext } from './strategy.ts';
import type { DrivenStepName } from './driven-client.ts';

/** Everything a client process needs, sent once over IPC (the frozen run config stays in the harness). */
export interface ClientSpec {
  slot: number;
  concurrency: number;
  /** Strategy module URL (built-in or plugin). */
  strategyUrl: string;
  /** A lock in another language: the command the client starts and speaks the lock-client protocol to. */
  foreign?: ForeignCommand;
  /**
   * The cgroup folder of this client's lock processes (each gets one below it), set by the harness's pool where a
   * cgroup can be made; absent: each lock process is its own process group (workloads/foreign/lock-tree.ts).
   */
  lockCgroup?: string;
  ctx: LockContext;
  pg: pg.ClientConfig;
  mode: WriteMode;
  thinkMs: number;
  accounts: number;
  watchdog: boolean;
  seed: number;
  /** A step that hasn't answered after this long is recorded as `info` and the client moves on as a new process. */
  stepTimeoutMs: number;
  /**
   * null: each completion goes to the harness at once (a fault of the run aims by the clients' ops: needs.liveOps).
   * A number: every op is written ahead to the in-flight file and they are sent together this long after the first
   * of them (workloads/op-outbox.ts).
   */
  opBatchMs: number | null;
  /**
   * Process ids start at `slot + concurrency × generation`: 0 for a slot's first process; a client restarted
   * after its process died continues past the ids its predecessor used (Jepsen's rule for `info`).
   */
  generation?: number;
  /**
   * Present for a client a scripted scenario drives (workloads/driven-client.ts): it connects, says `waiting`, and
   * takes one `step` at a time on `account` instead of running the free loop.
   */
  driven?: { account: number };
}

export type ToClient =
  | { type: 'start'; spec: ClientSpec }
  | { type: 'stop' }
  /** A driven client's next step (spec.driven); `seq` names it in a `step-refused`. */
  | { type: 'step'; seq: number; f: DrivenStepName };
/**
 * `ops`: one or more ops in the client's order (op-outbox.ts: an invoke usually travels with its completion), each
 * with its `at`: when the op happened, as the client's `process.hrtime.bigint()` (CLOCK_MONOTONIC, shared by every
 * process on the host and never shifted by our clock shim, which only touches CLOCK_REALTIME) in decimal: JSON has
 * no bigint, and a double loses nanoseconds after ~104 days of uptime.
 */
export type FromClient =
  | { type: 'ready' }
  | { type: 'ops'; ops: SentOp[] }
  | { type: 'stopped' }
  | { type: 'log'; line: string }
  /** A driven client connected to its lock and resource: ready for its first step. */
  | { type: 'waiting' }
  /** A driven client's step its state does not allow (a write with no read): nothing was invoked. */
  | { type: 'step-refused'; seq: number; reason: string }
  /**
   * The client's foreign lock process started (`pid`) or ended (`pid: null`, `ended`: its pid): the harness registers it, pauses it
   * with the client and kills it with the client.
   */
  | { type: 'lock-process'; pid: number; command: string; ended?: undefined }
  | { type: 'lock-process'; pid: null; ended: number; command?: undefined }
  /**
   * The lock library raised an error that reached the process's top level unhandled, and the strategy names it as the
   * library's own (LockStrategy.libraryCrash): sent just before the process exits with LIBRARY_CRASHED.
   */
  | { type: 'library-crash'; error: string; message: string };
