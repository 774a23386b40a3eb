import type { Op } from '../history/op.ts';
import type { NemesisValue } from '../history/bank.ts';
import type { RunResults } from './run-results.ts';

type Fault = RunResults['faults'][number];

/**
 * Fault windows from the nemesis's records: each `start` is paired with the next `end` of the same fault (same
 * targets preferred, so overlapping faults of one kind pair up correctly). A fault that never ended has
 * `end: null` — the report should say so, since teardown is supposed to heal everything. A nemesis record without
 * a phase (Jepsen's EDN histories) is an instant.
 */
export function faultWindows(history: Op[]): Fault[] {
  const faults: Fault[] = [];
  const open: Fault[] = [];
  for (const op of history) {
    if (op.process !== 'nemesis') continue;
    const v = (op.value ?? {}) as Partial<NemesisValue>;
    const targets = Array.isArray(v.targets) ? v.targets.map(String) : [];
    const extra = { ...(v.params ? { params: v.params } : {}), ...(v.note ? { note: v.note } : {}) };
    if (v.phase === 'end') {
      const sameTargets = open.findIndex((f) => f.f === op.f && f.targets.join('\n') === targets.join('\n'));
      const i = sameTargets >= 0 ? sameTargets : open.findIndex((f) => f.f === op.f);
      if (i >= 0) {
        const [fault] = open.splice(i, 1);
        fault.end = op.time;
        if (v.note) fault.note = fault.note ? `${fault.note}; ${v.note}` : v.note;
      } else {
        faults.push({ f: op.f, start: op.time, end: op.time, targets, ...extra, note: 'end without a start' });
      }
      continue;
    }
    const fault: Fault = { f: op.f, start: op.time, end: v.phase === 'start' ? null : op.time, targets, ...extra };
    faults.push(fault);
    if (v.phase === 'start') open.push(fault);
  }
  return faults;
}
