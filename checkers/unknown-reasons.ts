import type { Progress } from './progress.ts';
import type { Valid } from './run-results.ts';

/** What a run must have done for its VALID to mean something. */
export interface EvidenceRules {
  /** `--min-writes`: committed writes needed. */
  minWrites: number;
  /** `--concurrency`: with 2 or more clients, at least two distinct ones must have committed a write. */
  concurrency: number;
}

/**
 * The facts a verdict's evidence is judged on. Each source of "this run proved nothing" adds a field here and
 * a rule below (progress today; whether each targeted fault hit, later), so every reason lands in one list.
 */
export interface Evidence {
  progress: Progress;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Why the run's checkers passing would not make it VALID, most important first; empty when the evidence holds.
 * Pure: the run's results and the report show exactly these strings, and `check <run-dir>` recomputes them.
 */
export function unknownReasons(evidence: Evidence, rules: EvidenceRules): string[] {
  const reasons: string[] = [];
  const p = evidence.progress;
  if (p.committedWrites < rules.minWrites) {
    const head =
      p.committedWrites === 0
        ? 'no progress: 0 writes committed'
        : `too little progress: ${plural(p.committedWrites, 'write')} committed, --min-writes=${rules.minWrites}`;
    reasons.push([head, ...whyNoProgress(p)].join('; '));
  } else if (rules.concurrency >= 2 && p.writers.length < 2) {
    reasons.push(
      `no concurrency: only client ${p.writers[0]} committed writes (${p.committedWrites}) although --concurrency=${rules.concurrency}; a lock is only tested when at least two clients write`,
    );
  }
  if (p.slotsGaveUp > 0) {
    // The exits themselves lead the no-progress reason already; say it here only when that reason is absent.
    const exits =
      p.committedWrites < rules.minWrites ? '' : `: ${plural(p.clientExits, 'client process exit')}${lastExitText(p)}`;
    reasons.push(
      `clients kept dying${exits}; ${p.slotsGaveUp} of ${rules.concurrency} client slot(s) gave up; see logs/client-<n>.log`,
    );
  }
  return reasons;
}

function whyNoProgress(p: Progress): string[] {
  const parts: string[] = [];
  // Dying clients first: they explain the other counts (an acquire cut short by an exit ends unknown).
  if (p.clientExits > 0) parts.push(`${plural(p.clientExits, 'client process exit')}${lastExitText(p)}`);
  const a = p.acquires;
  if (a.timedOut > 0) parts.push(`${plural(a.timedOut, 'acquire')} timed out`);
  if (a.notAcquired > 0) parts.push(`${plural(a.notAcquired, 'acquire')} not acquired`);
  if (a.unknown > 0) parts.push(`${plural(a.unknown, 'acquire')} ended with an unknown outcome`);
  if (a.ok > 0) parts.push(`${plural(a.ok, 'acquire')} succeeded`);
  if (p.connectFailures > 0)
    parts.push(
      `${plural(p.connectFailures, 'connect')} failed${p.lastConnectError ? ` (last: ${p.lastConnectError})` : ''}`,
    );
  if (parts.length === 0) parts.push('no client op completed');
  return parts;
}

function lastExitText(p: Progress): string {
  const e = p.lastExit;
  if (!e) return '';
  const how = e.signal ? `signal ${e.signal}` : `code ${e.code}`;
  if (e.libraryCrash)
    return `; last: client ${e.slot} ended by its lock library (${e.libraryCrash.error}: ${e.libraryCrash.message})`;
  const line = e.lastLines.at(-1);
  return `; last: client ${e.slot} exited with ${how}${line ? `: ${line}` : ''}`;
}

/** Jepsen's order false > unknown > true, with the reasons as one more unknown: an INVALID run stays INVALID. */
export function withReasons(checkersVerdict: Valid, reasons: readonly string[]): Valid {
  if (checkersVerdict === false) return false;
  return reasons.length > 0 ? 'unknown' : checkersVerdict;
}
