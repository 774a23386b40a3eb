import { faultWindow, type FaultWindow } from '../history/fault-windows.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { isRecord } from '../common/is-record.ts';

/**
 * The fault bands a report draws: the History's fault windows (history/fault-windows.ts, the one reader of them),
 * or, when the history holds no nemesis record (lost, or cut before the first fault), the windows the checker kept
 * in `results.faults`. The history wins because it also carries the end's params.
 */
export function faultsToDraw(history: History | readonly Op[], results?: Partial<RunResults>): FaultWindow[] {
  const fromHistory = History.of(history).faults;
  if (fromHistory.length > 0 || !results || !Array.isArray(results.faults)) return [...fromHistory];
  return results.faults
    .filter((f) => f && typeof f.start === 'number')
    .map((f) =>
      faultWindow(
        String(f.f),
        f.start,
        typeof f.end === 'number' ? f.end : null,
        Array.isArray(f.targets) ? f.targets.map(String) : [],
        isRecord(f.params) ? f.params : {},
        f.note ? { note: f.note } : {},
      ),
    )
    .sort((a, b) => a.start - b.start);
}
