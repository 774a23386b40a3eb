import type { Journal } from '../history/journal.ts';
import type { CriticalSection } from './critical-sections.ts';
import type { FaultAim } from '../faults/fault-aim.ts';

/** Where a fault struck: the journal's size and the time, taken right after the strike. */
export interface Strike {
  atIndex: number;
  atTime: number;
}

export function strikeNow(journal: Journal): Strike {
  return { atIndex: journal.size, atTime: journal.sinceOrigin(process.hrtime.bigint()) };
}

/** The aim of a fault that struck `section` at `strike`. */
export function aimAt(
  section: CriticalSection,
  strike: Strike,
  extra: Pick<FaultAim, 'struck' | 'keysOn' | 'needed'> = {},
): FaultAim {
  return {
    process: section.process,
    account: section.account,
    readIndex: section.readIndex,
    readTime: section.readTime,
    ...strike,
    ...extra,
  };
}
