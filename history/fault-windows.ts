import type { NemesisValue } from './bank.ts';
import type { Op } from './op.ts';
import { isRecord } from '../common/is-record.ts';

/**
 * A fault as the history records it: the nemesis's `start` record paired with its `end`, on the run's clock, with
 * whom it hit. The one reader of fault windows: the checker's `results.faults` and the report's bands both come
 * from here.
 */
export interface FaultWindow {
  f: string;
  /** ns since the run started (the ops' clock). */
  start: number;
  /** null: the fault never ended before the history did (the run crashed or was interrupted mid-fault). */
  end: number | null;
  startMs: number;
  endMs: number | null;
  targets: string[];
  params: Record<string, unknown>;
  /** Params of the end op (a clock fault may record the offset it restored). */
  endParams?: Record<string, unknown>;
  /** The start's note and the end's, joined. */
  note?: string;
  /** Client process ids named in the targets (`client p3 (pid 4242)` → 3). */
  processes: number[];
  /** OS pids named in the targets. */
  pids: number[];
  /** History index of the nemesis op that started it (absent for an end without a start). */
  startIndex?: number;
  endIndex?: number;
}

export function targetProcesses(targets: readonly string[]): number[] {
  const out = new Set<number>();
  for (const t of targets) for (const m of String(t).matchAll(/\bp(\d+)\b/g)) out.add(Number(m[1]));
  return [...out];
}

export function targetPids(targets: readonly string[]): number[] {
  const out = new Set<number>();
  for (const t of targets) for (const m of String(t).matchAll(/\bpid:? ?(\d+)/g)) out.add(Number(m[1]));
  return [...out];
}

/** A window from its parts; `processes` and `pids` are read off the targets. */
export function faultWindow(
  f: string,
  start: number,
  end: number | null,
  targets: string[],
  params: Record<string, unknown>,
  extra: { note?: string; startIndex?: number } = {},
): FaultWindow {
  return {
    f,
    start,
    end,
    startMs: start / 1e6,
    endMs: end === null ? null : end / 1e6,
    targets,
    params,
    ...(extra.note ? { note: extra.note } : {}),
    processes: targetProcesses(targets),
    pids: targetPids(targets),
    ...(extra.startIndex !== undefined ? { startIndex: extra.startIndex } : {}),
  };
}

/**
 * Each `start` is paired with the next `end` of the same fault, same targets preferred, so overlapping faults of
 * one kind pair up correctly. A fault that never ended has `end: null` — the report says so, since teardown is
 * supposed to heal everything. A nemesis record without a phase (Jepsen's EDN histories) is an instant; an `end`
 * without a start (the journal began mid-fault) is an instant at the end, noted as such. In start order.
 */
export function faultWindows(history: readonly Op[]): FaultWindow[] {
  const out: FaultWindow[] = [];
  const open: FaultWindow[] = [];
  for (const op of history) {
    if (op.process !== 'nemesis') continue;
    const v = (isRecord(op.value) ? op.value : {}) as Partial<NemesisValue>;
    const targets = Array.isArray(v.targets) ? v.targets.map(String) : [];
    const params = isRecord(v.params) ? v.params : {};
    const note = typeof v.note === 'string' && v.note ? v.note : undefined;
    if (v.phase === 'end') {
      const sameTargets = open.findIndex((w) => w.f === op.f && w.targets.join('\n') === targets.join('\n'));
      const i = sameTargets >= 0 ? sameTargets : open.findIndex((w) => w.f === op.f);
      if (i >= 0) {
        const [w] = open.splice(i, 1);
        w.end = op.time;
        w.endMs = op.time / 1e6;
        w.endIndex = op.index;
        w.endParams = params;
        if (note) w.note = w.note ? `${w.note}; ${note}` : note;
      } else {
        const w = faultWindow(op.f, op.time, op.time, targets, params, { note: 'end without a start' });
        w.endIndex = op.index;
        out.push(w);
      }
      continue;
    }
    const w = faultWindow(op.f, op.time, v.phase === 'start' ? null : op.time, targets, params, {
      note,
      startIndex: op.index,
    });
    if (v.phase !== 'start') w.endIndex = op.index;
    out.push(w);
    if (v.phase === 'start') open.push(w);
  }
  // Stable: a history sealed in time order is already in start order; a crashed one may not be.
  return out.sort((a, b) => a.start - b.start);
}

/**
 * How long a fault lasted: end − start when the history saw it end (a pause the run's end cut short lasted less than
 * it planned); else the duration it planned (`durationMs`), else up to the end of the run.
 */
export function faultDurationMs(w: FaultWindow, runEndMs: number): number {
  if (w.endMs !== null) return w.endMs - w.startMs;
  const p = w.params.durationMs;
  if (typeof p === 'number' && Number.isFinite(p)) return p;
  return runEndMs - w.startMs;
}

/** Faults active at any point of [fromMs, toMs]. */
export function faultsDuring(
  windows: readonly FaultWindow[],
  fromMs: number,
  toMs: number,
  runEndMs: number,
): FaultWindow[] {
  return windows.filter((w) => w.startMs <= toMs && (w.endMs ?? runEndMs) >= fromMs);
}

/** `pause-holder on client p3 (pid 4242)`: the fault as one phrase, without its times. */
export function faultLabel(w: FaultWindow): string {
  return w.targets.length > 0 ? `${w.f} on ${w.targets.join(', ')}` : w.f;
}
