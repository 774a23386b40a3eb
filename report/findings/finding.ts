import type { RunResults } from '../../checkers/run-results.ts';
import type { FaultWindow } from '../../history/fault-windows.ts';
import { fmtAt, fmtCount } from '../format.ts';
import type { TimedPair, RunIndex } from '../op-pairs.ts';

/**
 * What a finding is, and the few facts every kind of finding tells the same way. A finding is a part of the
 * report an engineer reads first: sentences derived from the data, naming the processes, values, tokens and
 * faults involved, and where on the timeline to look. Each kind has its file beside this one; index.ts orders
 * them.
 */

export interface StoryInput {
  /** The run's ops paired and indexed; also the ledger lookup (`index.ledgerRow`). */
  index: RunIndex;
  results: Partial<RunResults>;
  faults: FaultWindow[];
  ttlMs: number | null;
  fencing: boolean;
  lock: string;
  /** The lock takes none (the no-lock baseline, as its row's cells say: locks/lock-finding.ts `no-lock`). */
  noLock?: boolean;
}

/** One write of a lost-update pair, with the acquire and read it came from. */
export interface WriteStory {
  role: 'erased' | 'overwrote';
  process: string;
  account: number;
  acquiredAtMs: number | null;
  token: string | null;
  readAtMs: number | null;
  readBalance: number | null;
  readWriteId: number | null;
  writeAtMs: number | null;
  /** When the write was invoked (the end of the critical section as the client saw it). */
  writeStartMs: number | null;
  from: number;
  to: number;
  delta: number;
  writeId: number;
  /** Faults active between its acquire and the end of its write. */
  faults: string[];
  /** History indexes of its acquire, read and write (invoke and completion). */
  ops: number[];
  /** History index of its write's invoke (the timeline marks that bar erased or overwriting); null when unknown. */
  writeOp: number | null;
}

export type FindingKind =
  | 'lost-update'
  | 'overlap'
  | 'fencing-violation'
  | 'paused-holder'
  | 'promise'
  | 'stale-writes'
  | 'linearizability'
  | 'undecided'
  | 'liveness'
  | 'clean';

export interface Finding {
  /** Anchor id in the page. */
  id: string;
  kind: FindingKind;
  /** bad: an anomaly; good: a safety mechanism visibly worked; note: context (a fault, an undecided checker). */
  severity: 'bad' | 'good' | 'note';
  title: string;
  sentences: string[];
  writes?: WriteStory[];
  /** The stretch of the run to show on the timeline (ms since start). */
  fromMs: number;
  toMs: number;
  /** History indexes to highlight there. */
  ops: number[];
}

export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const str = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;

/** The history indexes of some pairs (invoke and completion), for a finding's `ops`. */
export function opIndexes(...pairs: (TimedPair | null)[]): number[] {
  const out: number[] = [];
  for (const p of pairs) {
    if (!p) continue;
    out.push(p.invoke.index);
    if (p.completion) out.push(p.completion.index);
  }
  return out;
}

/** When a fault acted, as the findings write it: `12.3 s → 14.0 s`, or `→ end` when it never stopped. */
export const faultSpan = (w: FaultWindow): string =>
  `${fmtAt(w.startMs)} → ${w.endMs === null ? 'end' : fmtAt(w.endMs)}`;

/**
 * How a pause of `durMs` compares with the lock's TTL, as a clause: `, longer than the 2,000 ms TTL` — the
 * reason a paused holder's lease could expire under it. `within` says whether a pause inside the TTL is worth
 * saying too (the paused holder's own card says it; the lost-update card names only a pause that outlived it).
 */
export function ttlClause(durMs: number, ttlMs: number | null, within: 'say' | 'omit'): string {
  if (ttlMs === null) return '';
  if (durMs > ttlMs) return `, longer than the ${fmtCount(ttlMs)} ms TTL`;
  return within === 'say' ? `, within the ${fmtCount(ttlMs)} ms TTL` : '';
}
