import type { LedgerRow } from '../history/bank.ts';
import type { FaultHitCount } from './fault-hits.ts';
import type { FencingOrderResult } from './fencing-order.ts';
import type { LinearizableResult } from './linearizable.ts';
import type { LivenessResult } from './liveness.ts';
import type { LostRepliesResult } from './lost-replies/check-lost-replies.ts';
import type { LostUpdatesResult } from './lost-updates.ts';
import type { MutualExclusionResult } from './mutual-exclusion.ts';
import type { TokenOrderResult } from './token-order.ts';
import type { PromiseResult } from './promise/check-promise.ts';
import type { Progress } from './progress.ts';

/** Three-valued verdict, merged false > unknown > true (Jepsen's rule). */
export type Valid = true | false | 'unknown';

/** What every checker returns. Checkers add their own fields beside `valid`. */
export interface CheckerResult {
  valid: Valid;
  /** Set when the checker threw: its verdict is then `unknown`. */
  error?: string;
  [detail: string]: unknown;
}

/**
 * What one checker left in the results: its own result type, any field of which may be missing — the checker
 * threw (`error`, verdict unknown), it does not apply to the run (`note`), or the results are from an older
 * fencepost. So a reader gets the checker's field types and is told by the type to expect a field to be absent.
 */
export type Checked<R extends CheckerResult> = Partial<R> & {
  valid: Valid;
  error?: string;
  /** Why the checker did not look (not applicable to this strategy): its verdict is then `true` by definition. */
  note?: string;
  /** `false`: reported, but not part of the run's verdict (see check-run.ts DECIDING_CHECKERS). */
  decides?: boolean;
};

/** Every checker's result by name, as check-run.ts fills them (a type, so it reads as a record of results too). */
export type CheckerResults = {
  'lost-updates': Checked<LostUpdatesResult>;
  'mutual-exclusion': Checked<MutualExclusionResult>;
  'fencing-order': Checked<FencingOrderResult>;
  'token-order': Checked<TokenOrderResult>;
  linearizable: Checked<LinearizableResult>;
  /** The lock service from the clients' view, as a mutex: informational (`decides: false`). */
  'mutex-linearizable': Checked<LinearizableResult>;
  /** Stalls, recovery and starvation: decides only against a bound the user set (--max-stall). */
  liveness: Checked<LivenessResult>;
  /** Whose fault each overlap is (checkers/promise/): only a broken promise decides. Absent in older results. */
  promise: Checked<PromiseResult>;
  /**
   * What lost replies broke (checkers/lost-replies/): orphaned locks, never released, released another's, double
   * ownership. Informational (`decides: false`). Absent in results from before it existed.
   */
  'lost-replies': Checked<LostRepliesResult>;
};

export type CheckerName = keyof CheckerResults;

/** A committed write whose effect is missing from the final balance, with the write that overwrote it. */
export interface LostUpdate {
  account: number;
  lost: LedgerRow;
  /** The committed write that was based on a balance older than `lost` and so erased it. */
  overwrittenBy: LedgerRow;
  /** History indexes of the `write` ops (ok completions) for both, when the history has them. */
  lostOpIndex?: number;
  overwrittenByOpIndex?: number;
  /** The faults it happened under (checkers/lost-update-faults.ts): empty for none. */
  faults?: string[];
}

/** Two clients both believed they held the lock on one account over an overlapping interval. */
export interface Overlap {
  account: number;
  a: { process: number; acquiredAt: number; releasedAt: number; acquireIndex: number };
  b: { process: number; acquiredAt: number; releasedAt: number; acquireIndex: number };
  /** `confirmed` when the resource saw interleaved read/write pairs, else `suspected` (clients' view only). */
  kind: 'suspected' | 'confirmed';
  /** For a confirmed overlap: what the ledger shows (which write erased which). */
  evidence?: string;
}

export interface Quantiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The run's results file (store/run-dir.ts): what the run's checkers decided, plus the numbers a report and `compare` need. */
export interface RunResults {
  valid: Valid;
  /**
   * Why the verdict is `unknown` although no checker found a violation (no progress, one writer, clients that
   * kept dying, a targeted fault that never hit…), most important first; empty otherwise. Shown first by the summary and the report.
   */
  unknownReasons: string[];
  /** What the run got done: committed writes, writers, acquire outcomes, connect failures, client exits. */
  progress: Progress;
  lostUpdates: number;
  lostUpdateDetails: LostUpdate[];
  /**
   * Lost updates per fault active when they happened (checkers/lost-update-faults.ts; `no fault` for contention
   * alone). One lost update may count under two faults. Absent in results from before it was recorded.
   */
  lostUpdatesByFault?: Record<string, number>;
  staleWritesRejected: number;
  overlaps: number;
  /** How many of `overlaps` the resource's ledger confirms (the rest are suspected from the clients' view). */
  confirmedOverlaps: number;
  overlapDetails: Overlap[];
  /** Fault windows from the nemesis ops: name, start/end ns, targets. */
  faults: {
    f: string;
    start: number;
    end: number | null;
    targets: string[];
    params?: Record<string, unknown>;
    note?: string;
  }[];
  /** Per fault: how often it fired and, for those aimed at the lock, how often it hit, with each shot's evidence. */
  faultHits: Record<string, FaultHitCount>;
  /**
   * Liveness as measured (the `liveness` checker's numbers, checkers/liveness.ts): recovery after each fault
   * (median, max of fault end → next acquire), the longest stall, starved slots, and the findings as sentences.
   * A verdict only against `--max-stall`. null when that checker crashed; absent in runs from before it existed.
   */
  liveness?: {
    valid: Valid;
    ttlMs: number | null;
    maxStallMs: number | null;
    recoveryMs: { median: number; max: number; unrecovered: number } | null;
    longestStallMs: number;
    stalls: number;
    starved: number[];
    findings: string[];
    /**
     * The lost-replies checker's sentences (checkers/lost-replies/): each orphaned lock with its span against the
     * TTL, and each never-released, released-another's or double-ownership finding. Absent in older results.
     */
    lostReplies?: string[];
  } | null;
  opCounts: {
    total: number;
    ok: number;
    fail: number;
    info: number;
    byF: Record<string, { ok: number; fail: number; info: number }>;
  };
  /** Latencies in milliseconds, invoke → completion, for ok completions. */
  latency: Record<'acquire' | 'read' | 'write' | 'release', Quantiles>;
  /** Ops per second over the run (ok completions / duration). */
  throughput: number;
  durationMs: number;
  /** Each checker's full result, by name: lost-updates, linearizable, mutual-exclusion, fencing-order, … */
  checkers: CheckerResults;
}
