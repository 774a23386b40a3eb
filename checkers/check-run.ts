import { NOT_APPLICABLE } from './verdict.ts';
import { lostUpdateFaults } from './lost-update-faults.ts';
import { leftFaultedOf, leftFaultedSentence } from './left-faulted.ts';
import type { FaultWindow } from '../history/fault-windows.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { Checked, CheckerResults, RunResults } from './run-results.ts';
import { composeVerdict, runChecker } from './compose.ts';
import { faultHitReasons, faultHits } from './fault-hits.ts';
import { checkFencingOrder } from './fencing-order.ts';
import { isStaleWriteRefusal } from '../history/stale-write.ts';
import { checkLinearizable } from './linearizable.ts';
import { checkLiveness, type LivenessOptions, type LivenessResult } from './liveness.ts';
import { checkLostUpdates } from './lost-updates.ts';
import { checkLostReplies, lostReplyLines, type LostRepliesResult } from './lost-replies/check-lost-replies.ts';
import { accountModel, accountOperations } from './models/account.ts';
import { mutexModel, mutexOperations } from './models/mutex.ts';
import { checkMutualExclusion } from './mutual-exclusion.ts';
import { checkPromise, type PromiseTerms } from './promise/check-promise.ts';
import { leaseProblems } from '../history/lease-terms.ts';
import { opStats } from './op-stats.ts';
import { progressOf } from './progress.ts';
import { checkTokenOrder } from './token-order.ts';
import { unknownReasons, withReasons, type EvidenceRules } from './unknown-reasons.ts';

export interface CheckRunOptions {
  /** The run used `--fencing`: token order is then a promise the fencing-order checker holds it to. */
  fencing: boolean;
  /** Budget for the linearizability search; past it that checker says `unknown`. Default 60 s. */
  deadlineMs?: number;
  /**
   * Whether the strategy's acquire claims mutual exclusion (default true). For one that takes no lock (none,
   * postgres) overlapping holders are by design: the mutual-exclusion checks say so instead of counting them.
   */
  exclusive?: boolean;
  /**
   * The run's fault list (its test record's `faults`). Each fault of it must have fired and acted at least once, by its own
   * evidence (fault-hits.ts), or the verdict is `unknown`. Default none: a history checked on its own demands
   * nothing of its faults.
   */
  faults?: readonly string[];
  /** Faults of the list the run left out (the test record's `skippedFaults`), with why: the reason they never fired. */
  skippedFaults?: Readonly<Record<string, string>>;
  /** The strategy's token kind: `monotonic` holds its grants to the token-order checker. */
  token?: 'monotonic' | 'version' | 'none';
  /**
   * What a VALID needs (committed writes, distinct writers). Absent = no such requirement: literal histories in
   * tests, and `check --model`. A run and `check <run-dir>` always pass it (see checkOptionsFor).
   */
  evidence?: EvidenceRules;
  /**
   * The lock's TTL, the client slots and the user's `--max-stall` for the liveness measurements (liveness.ts).
   * Absent = no TTL (every free stretch with a waiter is a stall) and no bound. With a bound the `liveness` checker
   * decides too; without one it measures and never changes the verdict.
   */
  liveness?: LivenessOptions;
  /**
   * Set when the run ended at a live lost update (--stop-on-lost-update) rather than at its time limit, in words.
   * Unless the lost-updates checker confirms one, the verdict is unknown with this reason: a run cut short is no
   * evidence of safety.
   */
  stoppedEarly?: string;
  /**
   * A scripted scenario's run that could not follow its script, in words: the verdict is unknown with this reason
   * unless a checker found a violation (a counterexample is always conclusive).
   */
  scriptDiverged?: string;
  /**
   * The lock's lease as the promise checker needs it (checkers/promise/): the run's TTL and the lock's LeaseTerms.
   * Absent = not recorded (literal histories, runs from before it): every hold's promise is then unknown.
   */
  promise?: PromiseTerms;
  /**
   * A target's servers the run could not heal, in words: the verdict is unknown with these reasons unless a checker
   * found a violation (a counterexample is always conclusive).
   */
  leftFaulted?: readonly string[];
}

/** `--min-writes`'s default: what a run must commit before its checkers passing counts as VALID. */
export const DEFAULT_MIN_WRITES = 10;

/** The options a stored run is checked with, from its test record: the same for the run itself and `check`. */
export function checkOptionsFor(test: {
  config?: { fencing?: unknown; minWrites?: unknown; concurrency?: unknown; ttlMs?: unknown; maxStallMs?: unknown };
  strategy?: { token?: string; exclusive?: boolean; lease?: unknown };
  faults?: unknown;
  skippedFaults?: unknown;
  stoppedEarly?: unknown;
  scenario?: unknown;
  aborted?: unknown;
  target?: unknown;
}): CheckRunOptions {
  const c = test.config;
  const script = scriptEvidence(test.scenario);
  // A fault the run left out (it did not apply) was never injected: it still counts against a VALID — a run that
  // tested nothing of it is no evidence about it — and its reason says why it never fired.
  const skipped =
    test.skippedFaults && typeof test.skippedFaults === 'object'
      ? Object.fromEntries(
          Object.entries(test.skippedFaults as Record<string, unknown>).map(([f, w]) => [f, String(w)]),
        )
      : {};
  return {
    ...(Array.isArray(test.faults) ? { faults: test.faults.map(String) } : {}),
    ...(Object.keys(skipped).length ? { skippedFaults: skipped } : {}),
    ...(test.stoppedEarly !== undefined ? { stoppedEarly: stoppedEarlyText(test.stoppedEarly) } : {}),
    // A target's abort condition cut the run short: as --stop-on-lost-update's early end, no evidence of safety.
    ...(typeof test.aborted === 'string' ? { stoppedEarly: `aborted by the target's condition: ${test.aborted}` } : {}),
    ...(leftFaultedOf(test.target).length
      ? {
          leftFaulted: leftFaultedOf(test.target).map((l) => `${leftFaultedSentence(l)} (its heal failed: ${l.error})`),
        }
      : {}),
    // The version column is the postgres strategy's fence: hold it to the fencing promises too.
    fencing: test.config?.fencing === true || test.strategy?.token === 'version',
    exclusive: test.strategy?.exclusive !== false,
    ...(test.strategy?.token === 'monotonic' || test.strategy?.token === 'version' || test.strategy?.token === 'none'
      ? { token: test.strategy.token }
      : {}),
    liveness: {
      ttlMs: typeof c?.ttlMs === 'number' ? c.ttlMs : null,
      maxStallMs: typeof c?.maxStallMs === 'number' ? c.maxStallMs : null,
      ...(typeof c?.concurrency === 'number' ? { concurrency: c.concurrency } : {}),
    },
    ...(script.diverged ? { scriptDiverged: script.diverged } : {}),
    // Recorded since the promise checker: null (the lock declares nothing) counts; absent (an older run) or damaged
    // does not — every overlap's class is then unknown, never guessed from terms the record does not hold.
    ...(test.strategy && 'lease' in test.strategy && leaseRecorded(test.strategy.lease)
      ? { promise: { ttlMs: typeof c?.ttlMs === 'number' ? c.ttlMs : null, lease: test.strategy.lease } }
      : {}),
    // Runs from before --min-writes existed are held to its default. A scenario's script decides who writes how
    // often: its evidence is that it was followed and its faults' stories completed, with a write committed.
    evidence: script.scripted
      ? { minWrites: 1, concurrency: 1 }
      : {
          minWrites: typeof c?.minWrites === 'number' ? c.minWrites : DEFAULT_MIN_WRITES,
          concurrency: typeof c?.concurrency === 'number' ? c.concurrency : 1,
        },
  };
}

/** A test record's lease terms as the run wrote them: null, or terms a strategy could have declared. */
function leaseRecorded(raw: unknown): raw is PromiseTerms['lease'] {
  return raw === null || leaseProblems(raw).length === 0;
}

/** A test record's scenario (store/test-json.ts ScenarioRecord): whether the run was scripted, and where it left its script. */
function scriptEvidence(raw: unknown): { scripted: boolean; diverged?: string } {
  if (!raw || typeof raw !== 'object') return { scripted: false };
  const d = (raw as { diverged?: { step?: unknown; text?: unknown; why?: unknown } | null }).diverged;
  if (!d) return { scripted: true };
  return {
    scripted: true,
    diverged: `the run could not follow its script at step ${String(d.step)} "${String(d.text)}": ${String(d.why)}; a run off its script is evidence neither way`,
  };
}

/** The test record's `stoppedEarly`, in the words of the reason a run cut short gets when no lost update is found. */
function stoppedEarlyText(s: unknown): string {
  const r = (s && typeof s === 'object' ? s : {}) as Record<string, unknown>;
  const n = (k: string) => (typeof r[k] === 'number' ? (r[k] as number) : null);
  const at = n('atS');
  const what =
    n('writeId') !== null
      ? `: write #${n('writeId')} did not see #${n('missed') ?? '?'} on account ${n('account') ?? '?'}`
      : '';
  return `stopped early on a live lost update${at !== null ? ` at ${at.toFixed(1)} s` : ''}${what}`;
}

const NOT_EXCLUSIVE = `${NOT_APPLICABLE}the strategy takes no lock, so its holders overlap by design`;
const NO_MONOTONIC_TOKEN = `${NOT_APPLICABLE}the strategy declares no monotonic token`;
const NOT_FENCED = `${NOT_APPLICABLE}the run is not fenced: the resource checked no tokens`;

/**
 * The checkers whose verdicts make the run's verdict. `mutex-linearizable` (the lock service from the clients'
 * view) is reported but does not decide: a lease-based lock that expires under a paused holder is "not a
 * mutex" by design, and what matters is whether that damaged the data, which the others judge.
 */
export const DECIDING_CHECKERS = [
  'lost-updates',
  'mutual-exclusion',
  'fencing-order',
  'token-order',
  'linearizable',
  'promise',
] as const;

const DEFAULT_DEADLINE_MS = 60_000;
/** The informational mutex check gets a small slice of the budget: it must never hold a run's results up. */
const MUTEX_BUDGET_MS = 5_000;
const MUTEX_MAX_CONFIGURATIONS = 500_000;

/**
 * Checks a bank run's history and fills every field of its results. Pure: the caller does the I/O. The History
 * is built once here, so its pair index, fault windows and bank view are shared by every checker.
 */
export function checkRun(input: History | readonly Op[], opts: CheckRunOptions): RunResults {
  const history = History.of(input);
  const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const checkers: CheckerResults = {
    'lost-updates': runChecker(() => checkLostUpdates(history)),
    'mutual-exclusion':
      opts.exclusive === false
        ? { valid: true, overlaps: [], note: NOT_EXCLUSIVE }
        : runChecker(() => checkMutualExclusion(history)),
    // Unfenced, no write carries a token the resource checks: the checker counts what it saw, but decides nothing.
    'fencing-order': opts.fencing
      ? runChecker(() => checkFencingOrder(history, { fencing: true }))
      : { ...runChecker(() => checkFencingOrder(history, { fencing: false })), note: NOT_FENCED },
    'token-order':
      opts.token === 'monotonic'
        ? runChecker(() => checkTokenOrder(history))
        : { valid: true, note: NO_MONOTONIC_TOKEN },
    linearizable: runChecker(() => checkLinearizable(accountModel, accountOperations(history), { deadlineMs })),
    'mutex-linearizable':
      opts.exclusive === false
        ? { valid: true, decides: false, note: NOT_EXCLUSIVE }
        : runChecker(() => ({
            ...checkLinearizable(mutexModel, mutexOperations(history).ops, {
              deadlineMs: Math.min(deadlineMs, MUTEX_BUDGET_MS),
              maxConfigurations: MUTEX_MAX_CONFIGURATIONS,
            }),
            decides: false,
          })),
    liveness: runChecker(() => checkLiveness(history, opts.liveness ?? { ttlMs: null })),
    // Only a broken promise decides (INVALID); outlived, own-clock and unknown overlaps are findings.
    promise:
      opts.exclusive === false
        ? { valid: true, note: NOT_EXCLUSIVE }
        : runChecker(() => checkPromise(history, opts.promise)),
    // What lost replies broke: measured and named, never deciding (the checkers above judge the damage).
    'lost-replies': {
      ...runChecker(() => checkLostReplies(history, { ttlMs: opts.liveness?.ttlMs ?? null })),
      decides: false,
    },
  };
  // Slow is not INVALID: the liveness checker decides only against a bound the user set (--max-stall).
  const deciding = opts.liveness?.maxStallMs != null ? [...DECIDING_CHECKERS, 'liveness'] : DECIDING_CHECKERS;
  if (opts.liveness?.maxStallMs == null) checkers.liveness.decides = false;

  const lostUpdates = checkers['lost-updates'].lostUpdates ?? [];
  const behind = lostUpdateFaults(history, lostUpdates);
  const lostUpdateDetails = lostUpdates.map((l, i) => ({ ...l, faults: behind.perLostUpdate[i] ?? [] }));
  const overlapDetails = checkers['mutual-exclusion'].overlaps ?? [];
  const hits = faultHits(history);
  const progress = progressOf(history, opts.evidence?.concurrency);
  // Progress first (nothing written says more than a fault that missed), then the faults that never hit.
  const reasons = [
    ...(opts.scriptDiverged ? [opts.scriptDiverged] : []),
    ...(opts.leftFaulted ?? []),
    ...(opts.evidence ? unknownReasons({ progress }, opts.evidence) : []),
    ...faultHitReasons(hits, opts.faults ?? [], opts.skippedFaults),
    ...(opts.stoppedEarly && checkers['lost-updates'].valid !== false
      ? [`${opts.stoppedEarly}, but the ledger shows no lost update: a run cut short earns no VALID`]
      : []),
  ];
  return {
    // false > unknown > true: a run the checkers found INVALID stays INVALID whatever its faults did.
    valid: withReasons(composeVerdict(checkers, deciding), reasons),
    unknownReasons: reasons,
    progress,
    lostUpdates: lostUpdateDetails.length,
    lostUpdateDetails,
    lostUpdatesByFault: behind.byFault,
    staleWritesRejected: countStaleWrites(history),
    overlaps: overlapDetails.length,
    confirmedOverlaps: overlapDetails.filter((o) => o.kind === 'confirmed').length,
    overlapDetails,
    faults: history.faults.map(resultFault),
    faultHits: hits,
    liveness: livenessSummary(checkers.liveness, checkers['lost-replies']),
    ...opStats(history),
    checkers,
  };
}

/** The liveness numbers the summary, the matrix and the nightly comparison read; null when that checker crashed. */
function livenessSummary(
  checked: Checked<LivenessResult>,
  lostReplies: Checked<LostRepliesResult>,
): RunResults['liveness'] {
  if (checked.error !== undefined || checked.longestStallMs === undefined) return null;
  // Not crashed: the checker returned its whole result (runChecker keeps it as it came).
  const l = checked as LivenessResult;
  return {
    valid: l.valid,
    ttlMs: l.ttlMs,
    maxStallMs: l.maxStallMs,
    recoveryMs: l.recoveryMs,
    longestStallMs: l.longestStallMs,
    stalls: l.stalls.length,
    starved: l.starved,
    findings: l.findings,
    ...(lostReplies.findings?.length ? { lostReplies: lostReplyLines(lostReplies) } : {}),
  };
}

/** Counted here as well as in fencing-order, so the number survives that checker crashing. */
function countStaleWrites(history: History): number {
  return history.ops.filter(isStaleWriteRefusal).length;
}

/** A fault window as the run's results keep it: ns on the run's clock, the params and note only when there are some. */
function resultFault(w: FaultWindow): RunResults['faults'][number] {
  return {
    f: w.f,
    start: w.start,
    end: w.end,
    targets: w.targets,
    ...(Object.keys(w.params).length > 0 ? { params: w.params } : {}),
    ...(w.note ? { note: w.note } : {}),
  };
}
