import type { NemesisValue } from '../history/bank.ts';
import type { Op } from '../history/op.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { isRecord } from '../common/is-record.ts';

/** A fault as a report draws it: a band on the run's clock (ms since start), with whom it hit. */
export interface FaultWindow {
  f: string;
  startMs: number;
  /** null: the fault never ended before the history did (the run crashed or was interrupted mid-fault). */
  endMs: number | null;
  targets: string[];
  params: Record<string, unknown>;
  /** Params of the end op (a clock fault may record the offset it restored). */
  endParams?: Record<string, unknown>;
  note?: string;
  /** Client process ids named in the targets (`client p3 (pid 4242)` → 3). */
  processes: number[];
  /** OS pids named in the targets. */
  pids: number[];
  /** History index of the nemesis op that started it, when known. */
  startIndex?: number;
}

export function targetProcesses(targets: readonly string[]): number[] {
  const out = new Set<number>();
  for (const t of targets) for (const m of String(t).matchAll(/\bp(\d+)\b/g)) out.add(Number(m[1]));
  return [...out];
}

function targetPids(targets: readonly string[]): number[] {
  const out = new Set<number>();
  for (const t of targets) for (const m of String(t).matchAll(/\bpid:? ?(\d+)/g)) out.add(Number(m[1]));
  return [...out];
}

function window(
  f: string,
  startMs: number,
  endMs: number | null,
  targets: string[],
  params: Record<string, unknown>,
  note: string | undefined,
  startIndex?: number,
): FaultWindow {
  return {
    f,
    startMs,
    endMs,
    targets,
    params,
    ...(note ? { note } : {}),
    processes: targetProcesses(targets),
    pids: targetPids(targets),
    ...(startIndex !== undefined ? { startIndex } : {}),
  };
}

/**
 * Fault windows from the nemesis ops of the history (start/end pairs, matched per fault name in order), or from
 * `results.faults` when the history has none. The history wins because it also carries params and notes.
 */
export function faultWindows(history: readonly Op[], results?: Partial<RunResults>): FaultWindow[] {
  const out: FaultWindow[] = [];
  const open = new Map<string, FaultWindow[]>();
  for (const op of history) {
    if (op.process !== 'nemesis') continue;
    const v = (isRecord(op.value) ? op.value : {}) as Partial<NemesisValue>;
    const targets = Array.isArray(v.targets) ? v.targets.map(String) : [];
    const params = isRecord(v.params) ? v.params : {};
    const ms = op.time / 1e6;
    if (v.phase === 'end') {
      const queue = open.get(op.f);
      const w = queue?.shift();
      if (w) {
        w.endMs = ms;
        if (!w.note && typeof v.note === 'string') w.note = v.note;
        w.endParams = params;
      } else {
        // An end with no start (the journal began mid-fault): draw it from the run's start.
        out.push(window(op.f, 0, ms, targets, params, typeof v.note === 'string' ? v.note : undefined));
      }
      continue;
    }
    const w = window(op.f, ms, null, targets, params, typeof v.note === 'string' ? v.note : undefined, op.index);
    out.push(w);
    const queue = open.get(op.f) ?? [];
    queue.push(w);
    open.set(op.f, queue);
  }
  if (out.length > 0 || !results || !Array.isArray(results.faults)) return out.sort((a, b) => a.startMs - b.startMs);
  return results.faults
    .filter((f) => f && typeof f.start === 'number')
    .map((f) =>
      window(
        String(f.f),
        f.start / 1e6,
        typeof f.end === 'number' ? f.end / 1e6 : null,
        Array.isArray(f.targets) ? f.targets.map(String) : [],
        isRecord(f.params) ? f.params : {},
        f.note,
      ),
    )
    .sort((a, b) => a.startMs - b.startMs);
}

/** How long a fault lasted: its own `durationMs` parameter if it has one, else end − start. */
export function faultDurationMs(w: FaultWindow, runEndMs: number): number {
  const p = w.params.durationMs;
  if (typeof p === 'number' && Number.isFinite(p)) return p;
  return (w.endMs ?? runEndMs) - w.startMs;
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

/** `pause-holder on client p3 (pid 4242), 1.200 s → 4.200 s` minus the times: the fault as one phrase. */
export function faultLabel(w: FaultWindow): string {
  return w.targets.length > 0 ? `${w.f} on ${w.targets.join(', ')}` : w.f;
}
