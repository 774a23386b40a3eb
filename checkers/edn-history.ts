import { parseEDNString } from 'edn-data';
import type { Op, OpType, ProcessId } from '../history/op.ts';

/**
 * Reads a Jepsen/Knossos history in EDN — a vector (or list) of op maps, or one map per line — into our ops,
 * so Jepsen users can check their own histories with `check --model=…`.
 *
 * - Keywords become strings (`:invoke` → `invoke`, `:read` → `read`); nil → null; sets → arrays.
 * - `:process :nemesis` (or any non-integer process) is not a client; it becomes `nemesis`.
 * - `index` is the op's position in the file, because checkers need a dense index; `time` is `:time` when
 *   present, else the position. The search orders ops by position, not `:time`, as Knossos does.
 * - Knossos's older tuple format, `[process type f value]` per op, is accepted too.
 */
export function parseEdnHistory(text: string): Op[] {
  if (text.trim() === '') throw new Error('not an EDN history: the file is empty (is it truncated?)');
  const options = {
    mapAs: 'object',
    keywordAs: 'string',
    listAs: 'array',
    setAs: 'array',
    symbolAs: 'string',
    charAs: 'string',
  } as const;
  let parsed = parseEDNString(text, options);
  // A file of top-level maps (one per line), or of tuples, is a sequence of values, not one collection: the
  // parser returns only the first, so read it again wrapped in a vector.
  if (!Array.isArray(parsed) || (parsed.length > 0 && !isCollection(parsed[0]))) {
    parsed = parseEDNString(`[${text}\n]`, options);
  }
  if (!Array.isArray(parsed)) {
    throw new Error('not an EDN history: expected a vector or list of op maps (is the file truncated or empty?)');
  }
  return parsed.map((raw, position) => toOp(raw, position));
}

function isCollection(x: unknown): boolean {
  return x !== null && typeof x === 'object';
}

const TYPES: ReadonlySet<string> = new Set(['invoke', 'ok', 'fail', 'info']);

function toOp(raw: unknown, position: number): Op {
  const m: Record<string, unknown> | null = Array.isArray(raw)
    ? { process: raw[0], type: raw[1], f: raw[2], value: raw[3] }
    : (raw as Record<string, unknown> | null);
  if (m === null || typeof m !== 'object') throw new Error(`EDN op ${position}: expected a map, got ${show(raw)}`);
  const type = m.type;
  if (typeof type !== 'string' || !TYPES.has(type)) {
    throw new Error(`EDN op ${position}: :type must be :invoke, :ok, :fail or :info, got ${show(type)}`);
  }
  if (typeof m.f !== 'string') throw new Error(`EDN op ${position}: :f must be a keyword, got ${show(m.f)}`);
  const process: ProcessId = Number.isInteger(toPlain(m.process)) ? (toPlain(m.process) as number) : 'nemesis';
  const time = toPlain(m.time);
  const op: Op = {
    index: position,
    time: typeof time === 'number' ? time : position,
    process,
    type: type as OpType,
    f: m.f,
    value: toPlain(m.value) ?? null,
  };
  if (m.error !== undefined && m.error !== null) {
    const error = toPlain(m.error);
    op.error = typeof error === 'string' ? error : JSON.stringify(error);
  }
  return op;
}

/** EDN big integers (`1N`) become numbers when exact, else decimal strings; tagged values become their value. */
function toPlain(x: unknown): unknown {
  if (typeof x === 'bigint') return Number.isSafeInteger(Number(x)) ? Number(x) : x.toString();
  if (Array.isArray(x)) return x.map(toPlain);
  if (x instanceof Date) return x.toISOString();
  if (x !== null && typeof x === 'object') {
    return Object.fromEntries(Object.entries(x as Record<string, unknown>).map(([k, v]) => [k, toPlain(v)]));
  }
  return x;
}

function show(x: unknown): string {
  try {
    return JSON.stringify(toPlain(x)) ?? String(x);
  } catch {
    return String(x);
  }
}
