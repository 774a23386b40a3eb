import type { FinalRead, WriteValue } from '../history/bank.ts';
import type { Op, ProcessId } from '../history/op.ts';
import { processRole, watchdogProcess } from '../history/process-role.ts';
import type { FaultWindow } from '../history/fault-windows.ts';
import { faultLabel } from '../history/fault-windows.ts';
import { pairValue, processLabel, type TimedPair, type RunIndex } from './op-pairs.ts';
import type { Finding } from './findings/index.ts';
import { fmtSpan } from '../checkers/liveness.ts';
import type { PromiseOverlap } from '../checkers/promise/promise-overlaps.ts';
import { promiseWindows, type PromiseWindow } from './promise-windows.ts';

/**
 * The timeline's data, in columns (parallel arrays) because a 10k-pair history as objects would triple the page.
 *
 * How much goes in depends on the history's size, and the page says which:
 *  - `full`      (≤ FULL_DETAIL_PAIRS): every pair with its complete invoke/completion JSON for the hover;
 *  - `summaries` (≤ MAX_DRAWN_PAIRS): every pair drawn, hover shows a one-line summary; full JSON only for
 *                the ops findings point at and fail/info ops (up to MAX_DETAILS);
 *  - `windowed`  (more): only pairs within WINDOW_PAD_MS of a fault or a finding are drawn (up to
 *                MAX_DRAWN_PAIRS); the rest of the run is visible only in the throughput/latency charts.
 */
export const FULL_DETAIL_PAIRS = 3000;
export const MAX_DRAWN_PAIRS = 60_000;
export const MAX_DETAILS = 2000;
export const WINDOW_PAD_MS = 2000;
/** One op's JSON in a hover is cut here: a final read carries the whole ledger. */
export const MAX_DETAIL_CHARS = 2000;
const MAX_SUMMARY_CHARS = 120;

export type TimelineMode = 'full' | 'summaries' | 'windowed';

export interface TimelineData {
  mode: TimelineMode;
  totalPairs: number;
  shownPairs: number;
  endMs: number;
  /** Lane labels: one lane per client (OS) process, whose process ids follow each other (a new id after an info). */
  lanes: string[];
  /** Process labels (`p5`), indexed by `p`: the process id of each bar and each hold. */
  procs: string[];
  fNames: string[];
  /**
   * Columns, one entry per drawn pair, sorted by start. Encoded small, since they are most of a big page:
   * `s` start and `i` invoke history index are deltas from the previous entry; `s` and `d` (duration, -1 = never
   * completed) are integers in units of 10 µs. o: 0 ok, 1 fail, 2 info, 3 open.
   */
  s: number[];
  d: number[];
  l: number[];
  p: number[];
  f: number[];
  o: number[];
  i: number[];
  sum: string[];
  /** Value (and error) of invoke and completion as compact JSON, by invoke index (cut at MAX_DETAIL_CHARS); '' = the completion repeats it. */
  detail: Record<string, [string, string | null]>;
  /** Lock-holding intervals, acquire ok → release invoke: lane, start, end, k (0 released, 1 release found the lock gone, 2 never released). */
  holds: { l: number[]; p: number[]; s: number[]; e: number[]; k: number[] };
  /** Fault bands; `lanes`: the lanes of the client processes the fault targets (a paused holder). */
  faults: { f: string; s: number; e: number | null; label: string; note: string; lanes: number[] }[];
  /**
   * Liveness stalls (checkers/liveness.ts): stretches where clients waited and nobody held the lock for longer
   * than the TTL, hatched across every lane; `label` says how long, on which account, and whether it never ended.
   */
  stalls: { s: number; e: number; label: string }[];
  /** The promise checker's windows of the holds in its overlaps, on their holders' lanes (promise-windows.ts). */
  promises: PromiseWindow[];
  /** Ops the findings point at, by history index (invoke or completion): bad | good | note. */
  marks: Record<string, Finding['severity']>;
  /** windowed mode: the stretches that were kept. */
  windows: [number, number][];
}

const OUTCOME = { ok: 0, fail: 1, info: 2, open: 3 } as const;
const round = (ms: number) => Math.round(ms * 100) / 100;

/** Clients first, then their watchdogs, then the harness, then the nemesis. */
const LANE_RANK = { client: 0, watchdog: 1, harness: 2, nemesis: 3 } as const;

function laneOrder(a: ProcessId, b: ProcessId): number {
  const rank = (p: ProcessId) => LANE_RANK[processRole(p).kind];
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

/**
 * The lane of a process: its client slot. Client `slot` runs as process slot, slot + n, slot + 2n, … (n =
 * concurrency; Jepsen's rule: after an unknown outcome the process is never heard from again, and the client
 * goes on under a new id), so the ids of one slot never overlap in time and share its lane. A watchdog's ops
 * (renewals, concurrent with its client's) get a lane of their own per slot. Without the concurrency, one lane
 * per process id.
 */
function laneKey(p: ProcessId, concurrency: number | undefined): ProcessId {
  if (typeof p !== 'number' || !concurrency || concurrency < 1) return p;
  const role = processRole(p);
  return role.kind === 'watchdog' ? watchdogProcess(role.of % concurrency) : p % concurrency;
}

function laneLabel(key: ProcessId, concurrency: number | undefined): string {
  if (typeof key !== 'number' || !concurrency) return processLabel(key);
  const role = processRole(key);
  return role.kind === 'watchdog' ? `watchdog ${role.of}` : `client ${key}`;
}

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${(s.length - max).toLocaleString('en-US')} more characters)`;
}

/** What a hover adds to the bar's own facts: the op's value and error (its time, process and f are drawn). */
function opJson(op: Op): string {
  const head = op.type === 'invoke' ? 'invoke' : op.type;
  return cut(
    `${head} ${JSON.stringify(op.value)}${op.error !== undefined ? `  error: ${op.error}` : ''}`,
    MAX_DETAIL_CHARS,
  );
}

function subsumes(outer: unknown, inner: unknown): boolean {
  if (typeof inner !== 'object' || inner === null || typeof outer !== 'object' || outer === null) return false;
  return Object.entries(inner).every(
    ([k, v]) => JSON.stringify((outer as Record<string, unknown>)[k]) === JSON.stringify(v),
  );
}

/** One line a person reads on hover: what the op did, in the bank workload's terms. */
export function summarize(p: TimedPair, showAccount: boolean): string {
  const v = pairValue(p);
  const err = p.completion?.error ?? p.invoke.error;
  const acct = showAccount && typeof v.account === 'number' ? `a${v.account} ` : '';
  let s: string;
  switch (p.f) {
    case 'acquire':
      s =
        p.outcome === 'ok'
          ? `${v.token !== undefined ? `token ${String(v.token)}` : 'held'}${typeof v.validityMs === 'number' ? `, valid ${Math.round(v.validityMs)} ms` : ''}`
          : '';
      break;
    case 'read':
      s = p.outcome === 'ok' ? `balance ${String(v.balance)} (write #${String(v.lastWriteId)})` : '';
      break;
    case 'write': {
      const w = v as Partial<WriteValue>;
      s = `${w.from}→${w.to}${w.token !== undefined ? ` token ${w.token}` : ''}${p.outcome === 'ok' && w.writeId !== undefined ? ` = write #${w.writeId}` : ''}`;
      break;
    }
    case 'release':
      s = p.outcome === 'ok' ? (v.released === false ? 'lock was no longer ours' : 'released') : '';
      break;
    case 'final-read': {
      const fr = v as Partial<FinalRead>;
      s =
        p.outcome === 'ok'
          ? `balance ${String(fr.balance)}, ${Array.isArray(fr.ledger) ? fr.ledger.length : '?'} committed writes`
          : '';
      break;
    }
    default:
      s = JSON.stringify(v);
  }
  return cut(`${acct}${s}${err ? `${s ? ' ' : ''}✗ ${err}` : ''}`, MAX_SUMMARY_CHARS);
}

function merge(windows: [number, number][]): [number, number][] {
  const sorted = [...windows].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const w of sorted) {
    const last = out[out.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else out.push([w[0], w[1]]);
  }
  return out;
}

/** Which pairs are drawn, by the history's size (the modes above); `windows` is empty unless windowed. */
function selectShown(
  all: readonly TimedPair[],
  faults: readonly FaultWindow[],
  found: readonly Finding[],
  endMs: number,
): { mode: TimelineMode; windows: [number, number][]; shown: readonly TimedPair[] } {
  const mode: TimelineMode =
    all.length <= FULL_DETAIL_PAIRS ? 'full' : all.length <= MAX_DRAWN_PAIRS ? 'summaries' : 'windowed';
  if (mode !== 'windowed') return { mode, windows: [], shown: all };
  let windows = merge([
    ...faults.map((w): [number, number] => [w.startMs - WINDOW_PAD_MS, (w.endMs ?? endMs) + WINDOW_PAD_MS]),
    ...found
      .filter((f) => f.kind !== 'clean')
      .map((f): [number, number] => [f.fromMs - WINDOW_PAD_MS, f.toMs + WINDOW_PAD_MS]),
  ]);
  if (windows.length === 0) windows = [[0, Math.min(endMs, 10_000)]];
  const shown = all
    .filter((p) => windows.some(([a, b]) => p.startMs <= b && (p.endMs ?? endMs) >= a))
    .slice(0, MAX_DRAWN_PAIRS);
  return { mode, windows, shown };
}

/** Each op the findings point at, with the gravest severity any of them gives it. */
function findingMarks(found: readonly Finding[]): TimelineData['marks'] {
  const marks: TimelineData['marks'] = {};
  const rank = { bad: 3, good: 2, note: 1 } as const;
  for (const f of found)
    for (const i of f.ops) if (!marks[i] || rank[marks[i]] < rank[f.severity]) marks[i] = f.severity;
  return marks;
}

/** The drawn processes in lane order, and where each one goes: its process index and its lane (laneKey). */
interface Lanes {
  processes: ProcessId[];
  keys: ProcessId[];
  procOf: Map<ProcessId, number>;
  laneOf: Map<ProcessId, number>;
}

function lanesOf(shown: readonly TimedPair[], concurrency: number | undefined): Lanes {
  const processes = [...new Set(shown.map((p) => p.process))].sort(laneOrder);
  const procOf = new Map(processes.map((p, i) => [p, i]));
  const keys = [...new Set(processes.map((p) => laneKey(p, concurrency)))].sort(laneOrder);
  const keyLane = new Map(keys.map((k, i) => [k, i]));
  const laneOf = new Map(processes.map((p) => [p, keyLane.get(laneKey(p, concurrency))!]));
  return { processes, keys, procOf, laneOf };
}

/** The per-pair columns (delta-encoded, see TimelineData) and the hover details the mode allows. */
function pushPairs(data: TimelineData, shown: readonly TimedPair[], lanes: Lanes, showAccount: boolean): void {
  const { mode, marks } = data;
  const fIndex = new Map<string, number>();
  let details = 0;
  let prevStart = 0;
  let prevIndex = 0;
  for (const p of shown) {
    let fi = fIndex.get(p.f);
    if (fi === undefined) {
      fi = data.fNames.length;
      data.fNames.push(p.f);
      fIndex.set(p.f, fi);
    }
    const start = Math.round(p.startMs * 100);
    data.s.push(start - prevStart);
    prevStart = start;
    data.d.push(p.endMs === null ? -1 : Math.max(0, Math.round(p.endMs * 100) - start));
    data.i.push(p.invoke.index - prevIndex);
    prevIndex = p.invoke.index;
    data.l.push(lanes.laneOf.get(p.process)!);
    data.p.push(lanes.procOf.get(p.process)!);
    data.f.push(fi);
    data.o.push(OUTCOME[p.outcome]);
    data.sum.push(summarize(p, showAccount));
    const marked =
      marks[p.invoke.index] !== undefined || (p.completion !== null && marks[p.completion.index] !== undefined);
    if (mode === 'full' || marked || ((p.outcome === 'fail' || p.outcome === 'info') && details < MAX_DETAILS)) {
      if (mode !== 'full' && !marked) details++;
      const completion = p.completion && p.completion !== p.invoke ? p.completion : null;
      // The invocation's value is usually a subset of the completion's (a write's ok repeats it plus the write
      // id): then the completion alone says everything, at half the bytes.
      data.detail[p.invoke.index] = [
        completion && subsumes(completion.value, p.invoke.value) ? '' : opJson(p.invoke),
        completion ? opJson(completion) : null,
      ];
    }
  }
}

/**
 * Holding intervals: acquire ok → that process's release completion; an info or the end of the process's ops
 * leaves the lock unreleased (its lease dies with the TTL, which the client cannot see).
 */
function pushHolds(data: TimelineData, index: RunIndex, lanes: Lanes, endMs: number): void {
  for (const proc of lanes.processes) {
    if (typeof proc !== 'number') continue;
    const pairs = index.byProcess.get(proc) ?? [];
    let from: number | null = null;
    let lastSeen = 0;
    const close = (to: number, k: number) => {
      if (from === null) return;
      data.holds.l.push(lanes.laneOf.get(proc)!);
      data.holds.p.push(lanes.procOf.get(proc)!);
      data.holds.s.push(round(from));
      data.holds.e.push(round(to));
      data.holds.k.push(k);
      from = null;
    };
    for (const p of pairs) {
      lastSeen = p.endMs ?? endMs;
      if (p.f === 'acquire') {
        close(p.startMs, 2);
        if (p.outcome === 'ok' && p.endMs !== null) from = p.endMs;
      } else if (p.f === 'release') {
        // The hold ends when the client starts giving the lock up, as the mutual-exclusion checker counts it.
        close(p.startMs, p.completion && pairValue(p).released === false ? 1 : 0);
      } else if (p.outcome === 'info' || p.outcome === 'open') {
        close(p.endMs ?? endMs, 2);
      }
    }
    close(lastSeen, 2);
  }
}

/**
 * The timeline of one run: pick the mode and the drawn pairs (selectShown), mark the ops findings point at
 * (findingMarks), give each process its lane (lanesOf), then fill the pair columns (pushPairs) and the holding
 * intervals (pushHolds).
 */
export function timelineData(
  index: RunIndex,
  faults: readonly FaultWindow[],
  found: readonly Finding[],
  opts: {
    accounts?: number;
    concurrency?: number;
    stalls?: readonly { account: number; fromMs: number; toMs: number; durationMs: number; endedBy: string }[];
    /** The promise checker's classified overlaps (results.checkers.promise.overlaps). */
    promises?: readonly PromiseOverlap[];
  } = {},
): TimelineData {
  const all = [...index.pairs].sort((a, b) => a.startMs - b.startMs);
  const endMs = index.endMs;
  const { mode, windows, shown } = selectShown(all, faults, found, endMs);
  const lanes = lanesOf(shown, opts.concurrency);
  const data: TimelineData = {
    mode,
    totalPairs: all.length,
    shownPairs: shown.length,
    endMs: round(endMs),
    lanes: lanes.keys.map((k) => laneLabel(k, opts.concurrency)),
    procs: lanes.processes.map((p) => processLabel(p)),
    fNames: [],
    s: [],
    d: [],
    l: [],
    p: [],
    f: [],
    o: [],
    i: [],
    sum: [],
    detail: {},
    holds: { l: [], p: [], s: [], e: [], k: [] },
    faults: faults.map((w) => ({
      f: w.f,
      s: round(w.startMs),
      e: w.endMs === null ? null : round(w.endMs),
      label: faultLabel(w),
      note: w.note ?? '',
      lanes: [...new Set(w.processes.map((p) => lanes.laneOf.get(p)).filter((l): l is number => l !== undefined))],
    })),
    stalls: (opts.stalls ?? []).map((st) => ({
      s: round(st.fromMs),
      e: round(st.toMs),
      label: `stall: account ${st.account} free yet untaken for ${fmtSpan(st.durationMs)}${st.endedBy === 'history-end' ? ' (to the end: deadlock)' : ''}`,
    })),
    promises: promiseWindows(opts.promises ?? [], (p) => lanes.laneOf.get(p)),
    marks: findingMarks(found),
    windows: windows.map(([a, b]) => [round(Math.max(0, a)), round(Math.min(endMs, b))]),
  };
  pushPairs(data, shown, lanes, (opts.accounts ?? 1) > 1);
  pushHolds(data, index, lanes, endMs);
  return data;
}
