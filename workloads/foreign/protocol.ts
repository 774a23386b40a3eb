/**
 * The lock-client protocol, as data: what the harness's client process writes to a foreign lock process's stdin
 * and what each reply line on its stdout means. Newline-delimited JSON, one request at a time, each with an integer
 * `id` its reply repeats. Pure: the process wrapper (lock-process.ts) does the I/O, this file says what a line is.
 *
 * Contract (docs/protocol.md):
 *   → {"id":1,"op":"connect","endpoints":{…},"ttlMs":N,"acquireTimeoutMs":N,"replyTimeoutMs":N,"client":N,"seed":N}
 *   ← {"id":1,"ok":true} | {"id":1,"error":"…"}
 *   → {"id":2,"op":"acquire","key":"account-0"}
 *   ← {"id":2,"result":"held","token":"123"?,"validityMs":N?,"attempts":N?}   (history: ok)
 *   ← {"id":2,"result":"not-acquired","reason":"…"}                         (history: fail — definitely not held)
 *   ← {"id":2,"result":"error","error":"…"}                                 (history: info — unknown)
 *   → {"id":3,"op":"renew","key":"account-0","token"?} ← held (validityMs?) | lost | error
 *   → {"id":4,"op":"release","key":"account-0","token"?} ← {"result":"released","held"?:bool} | error
 *   → {"id":5,"op":"close"} ← {"result":"closed"}, then the process exits
 */
import type { DynamoEndpoint, Endpoint } from '../../locks/strategy.ts';

/** The run's servers, as the TS strategies get them in LockContext (proxies of the run when a fault acts there). */
export interface ForeignEndpoints {
  redis: Endpoint[];
  etcd: string[];
  etcdAuth?: { username: string; password: string };
  zookeeper: string;
  zookeeperAuth?: { username: string; password: string };
  /** The run's Postgres as a connection string, for a lock that lives in Postgres (LockContext.postgresUrl). */
  postgresUrl?: string;
  /** The run's pgbouncer in front of it, for a strategy that declares one (LockContext.pgbouncerUrl). */
  pgbouncerUrl?: string;
  /** The run's DynamoDB, for a strategy that declares one (LockContext.dynamodb). */
  dynamodb?: DynamoEndpoint;
}

export type ForeignRequest =
  | {
      op: 'connect';
      endpoints: ForeignEndpoints;
      ttlMs: number;
      acquireTimeoutMs: number;
      /** How long the harness waits for any reply but acquire's (acquire's: acquireTimeoutMs + ACQUIRE_GRACE_MS). */
      replyTimeoutMs: number;
      client: number;
      seed: number;
    }
  | { op: 'acquire'; key: string }
  | { op: 'renew'; key: string; token?: string }
  | { op: 'release'; key: string; token?: string }
  | { op: 'close' };

export type ForeignOp = ForeignRequest['op'];

/** What a reply means to the harness. `error` is always "unknown" (an `info` in the history). */
export type ForeignReply =
  | { kind: 'connected' }
  | { kind: 'held'; token?: string; validityMs?: number; attempts?: number }
  | { kind: 'not-acquired'; reason: string }
  | { kind: 'lost' }
  | { kind: 'released'; held: boolean }
  | { kind: 'closed' }
  | { kind: 'error'; error: string };

/**
 * How much longer than `acquireTimeoutMs` the harness waits for acquire's reply: the process gives up at its
 * acquire timeout and still has to say so.
 */
export const ACQUIRE_GRACE_MS = 1000;

/** One request line (with its newline). */
export function encodeRequest(id: number, req: ForeignRequest): string {
  return `${JSON.stringify({ id, ...req })}\n`;
}

/** A line the process wrote that breaks the protocol: the process is then abandoned (its op is `info`). */
export class ProtocolViolation extends Error {
  constructor(
    message: string,
    readonly line: string,
  ) {
    super(message);
    this.name = 'ProtocolViolation';
  }
}

/** At most this much of an offending line goes into an error message (a history op, a log line). */
const SHOWN_CHARS = 200;

export function shownLine(line: string): string {
  return JSON.stringify(line.length > SHOWN_CHARS ? `${line.slice(0, SHOWN_CHARS)}…` : line);
}

/**
 * A reply line to request `id` (op `op`), decoded, or a ProtocolViolation naming the line and what is wrong.
 * `expectToken`: the lock declared `token: 'monotonic'`, so `held` must carry one. Pure.
 */
export function decodeReply(line: string, id: number, op: ForeignOp, expectToken: boolean): ForeignReply {
  const bad = (why: string) =>
    new ProtocolViolation(`lock process broke the protocol (${why}): ${shownLine(line)}`, line);
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    throw bad(`not JSON, in reply to ${op} #${id}`);
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) throw bad('a reply must be a JSON object');
  const m = msg as Record<string, unknown>;
  if (m.id !== id) throw bad(`expected the reply to ${op} #${id}, got id ${JSON.stringify(m.id)}`);
  if (typeof m.error === 'string' && (m.result === undefined || m.result === 'error'))
    return { kind: 'error', error: m.error || 'error (no message)' };
  if (m.result === 'error') return { kind: 'error', error: 'error (no message)' };
  switch (op) {
    case 'connect':
      if (m.ok === true) return { kind: 'connected' };
      throw bad('connect answers {"id":…,"ok":true} or {"id":…,"error":"…"}');
    case 'acquire':
      if (m.result === 'held') return held(m, expectToken, bad);
      if (m.result === 'not-acquired')
        return { kind: 'not-acquired', reason: typeof m.reason === 'string' && m.reason ? m.reason : 'not acquired' };
      throw bad('acquire answers result "held", "not-acquired" or "error"');
    case 'renew':
      if (m.result === 'held') return held(m, false, bad);
      if (m.result === 'lost') return { kind: 'lost' };
      throw bad('renew answers result "held", "lost" or "error"');
    case 'release':
      if (m.result === 'released') {
        if (m.held !== undefined && typeof m.held !== 'boolean') throw bad('"held" must be true or false');
        return { kind: 'released', held: m.held !== false };
      }
      throw bad('release answers result "released" or "error"');
    case 'close':
      if (m.result === 'closed') return { kind: 'closed' };
      throw bad('close answers result "closed"');
  }
}

/** The largest token the resource's fence holds: numeric(20). */
const TOKEN = /^\d{1,20}$/;

function held(
  m: Record<string, unknown>,
  expectToken: boolean,
  bad: (why: string) => ProtocolViolation,
): ForeignReply & { kind: 'held' } {
  const out: ForeignReply & { kind: 'held' } = { kind: 'held' };
  if (m.token !== undefined && m.token !== null) {
    // A JSON number is accepted while it is exact; a bigger one must come as a string (a double loses digits).
    const t = typeof m.token === 'number' && Number.isSafeInteger(m.token) && m.token >= 0 ? String(m.token) : m.token;
    if (typeof t !== 'string' || !TOKEN.test(t))
      throw bad(`"token" must be a decimal string of at most 20 digits, got ${JSON.stringify(m.token)}`);
    out.token = t;
  } else if (expectToken) {
    throw bad('"held" without a "token", but the manifest declares token "monotonic"');
  }
  if (m.validityMs !== undefined) {
    if (typeof m.validityMs !== 'number' || !Number.isFinite(m.validityMs) || m.validityMs < 0)
      throw bad(`"validityMs" must be a number of ms ≥ 0, got ${JSON.stringify(m.validityMs)}`);
    out.validityMs = m.validityMs;
  }
  if (m.attempts !== undefined) {
    if (!Number.isInteger(m.attempts) || (m.attempts as number) < 1)
      throw bad(`"attempts" must be a whole number ≥ 1, got ${JSON.stringify(m.attempts)}`);
    out.attempts = m.attempts as number;
  }
  return out;
}
