import type pg from 'pg';
import type { SentOp } from './op-outbox.ts';
import type { WriteMode } from './resource.ts';
import type { ForeignCommand } from './foreign/manifest.ts';
import type { LockContext } from '../locks/strategy.ts';
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
  | { type: 'step'; seq: number; f: DrivenStepName }
  /** Read your wall and monotonic clocks and send them back (`clock`, with this `seq`). */
  | { type: 'clock'; seq: number };
/**
 * `ops`: one or more ops in the client's order (op-outbox.ts: an invoke usually travels with its completion), each
 * with its `at`: when the op happened, as the client's `process.hrtime.bigint()` (CLOCK_MONOTONIC, shared by every
 * process on the host — except while clock-rate-client runs this client's clocks at a rate: the harness then maps the
 * stamp back to real time by the client's clock record, harness/launch-clients.ts) in decimal: JSON has no bigint,
 * and a double loses nanoseconds after ~104 days of uptime. `clock`: the answer to a `clock` request, the client's
 * `Date.now()` and `process.hrtime.bigint()` (decimal) read together — clock-rate-client's proof that its rate reached
 * the process.
 */
export type FromClient =
  | { type: 'ready' }
  | { type: 'ops'; ops: SentOp[] }
  | { type: 'clock'; seq: number; wallMs: number; monoNs: string }
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

const OP_TYPES = new Set(['invoke', 'ok', 'fail', 'info']);

/** A client's IPC message as the protocol says it is, or what is wrong with it. */
export function checkedMessage(raw: unknown): FromClient | string {
  if (typeof raw !== 'object' || raw === null) return `not an object: ${typeof raw}`;
  const m = raw as Record<string, unknown>;
  if (m.type === 'ready' || m.type === 'stopped' || m.type === 'waiting') return m as FromClient;
  if (m.type === 'step-refused')
    return Number.isInteger(m.seq) && typeof m.reason === 'string'
      ? (m as FromClient)
      : 'a step-refused message without its seq and reason';
  if (m.type === 'lock-process')
    return (m.pid === null && Number.isInteger(m.ended) && (m.ended as number) > 0) ||
      (Number.isInteger(m.pid) && (m.pid as number) > 0)
      ? (m as FromClient)
      : `a lock-process message with pid ${JSON.stringify(m.pid)}`;
  if (m.type === 'log') return typeof m.line === 'string' ? (m as FromClient) : 'a log message without a line';
  if (m.type === 'library-crash')
    return typeof m.error === 'string' && typeof m.message === 'string'
      ? (m as FromClient)
      : 'a library-crash message without its error and message';
  if (m.type === 'clock')
    return Number.isInteger(m.seq) &&
      Number.isFinite(m.wallMs) &&
      typeof m.monoNs === 'string' &&
      /^\d{1,20}$/.test(m.monoNs)
      ? (m as FromClient)
      : 'a clock message without its seq, wallMs and monoNs';
  if (m.type !== 'ops') return `unknown type ${JSON.stringify(m.type)}`;
  if (!Array.isArray(m.ops) || m.ops.length === 0) return 'an ops message without ops';
  for (const sent of m.ops as unknown[]) {
    const problem = sentOpProblem(sent);
    if (problem) return problem;
  }
  return m as FromClient;
}

/** What is wrong with one op of an `ops` message, or undefined. */
function sentOpProblem(sent: unknown): string | undefined {
  if (typeof sent !== 'object' || sent === null) return 'an op entry that is not an object';
  const s = sent as Record<string, unknown>;
  if (!Number.isInteger(s.seq) || (s.seq as number) < 1) return `op seq ${JSON.stringify(s.seq)}`;
  if (typeof s.at !== 'string' || !/^\d{1,20}$/.test(s.at))
    return `op time ${JSON.stringify(s.at)} is not decimal nanoseconds`;
  const op = s.op as Record<string, unknown> | null;
  if (typeof op !== 'object' || op === null) return 'an op entry without an op';
  if (typeof op.process !== 'number' && typeof op.process !== 'string') return 'an op without a process';
  if (typeof op.type !== 'string' || !OP_TYPES.has(op.type)) return `op type ${JSON.stringify(op.type)}`;
  if (typeof op.f !== 'string') return 'an op without an f';
  return undefined;
}
