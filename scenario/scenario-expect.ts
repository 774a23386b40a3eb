import {
  describeSignature,
  readSignature,
  sameSignature,
  type FailureSignature,
} from '../checkers/failure-signature.ts';
import type { RunResults } from '../checkers/run-results.ts';

/**
 * What a replayed run must show to count as reproduced (a scenario's `expect`, a bundle's signature):
 * - a failure signature: the run failed, and with that signature (checkers/failure-signature.ts);
 * - a lost-replies finding (`{ "checker": "lost-replies", "anomaly": "orphaned-lock" }`): the informational checker
 *   of what lost replies break (checkers/lost-replies/) found one of that kind. The verdict may well be VALID: an
 *   orphaned lock or a lock never released is a liveness finding, not a safety one — the self-blocking and the
 *   double-counting classes of issue 46;
 * - `"clean"`: the run neither failed nor showed any lost-replies finding — what a lock that recovers from the lost
 *   reply by design shows (the idempotent class: Curator's protection mode finds its own node again).
 * A run that shows something else still says what (replay-tally.ts): nothing it found is thrown away.
 */
export type ReplayExpect = FailureSignature | LostReplyExpect | 'clean';

/** The lost-replies checker's four kinds of finding, by the name a scenario gives them. */
export const LOST_REPLY_ANOMALIES = [
  'orphaned-lock',
  'never-released',
  'released-another',
  'double-ownership',
] as const;
export type LostReplyAnomaly = (typeof LOST_REPLY_ANOMALIES)[number];

export interface LostReplyExpect {
  checker: 'lost-replies';
  anomaly: LostReplyAnomaly;
}

export const CLEAN = 'clean';

export function isLostReplyExpect(e: ReplayExpect | null): e is LostReplyExpect {
  return typeof e === 'object' && e !== null && e.checker === 'lost-replies';
}

/** A failure signature, when that is what is expected (null for a finding, for `clean`, and for none). */
export function expectedSignature(e: ReplayExpect | null): FailureSignature | null {
  return e === null || e === CLEAN || isLostReplyExpect(e) ? null : e;
}

/** An expectation read from a scenario file: `{ expect }`, or `{ problem }` saying what is wrong with it. */
export function readExpect(raw: unknown): { expect: ReplayExpect } | { problem: string } {
  if (raw === CLEAN) return { expect: CLEAN };
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const r = raw as Record<string, unknown>;
    if (r.checker === 'lost-replies') {
      const extra = Object.keys(r).filter((k) => k !== 'checker' && k !== 'anomaly');
      if (extra.length)
        return { problem: `a lost-replies finding is { "checker": "lost-replies", "anomaly": … }, not ${extra[0]}` };
      if (!(LOST_REPLY_ANOMALIES as readonly unknown[]).includes(r.anomaly))
        return {
          problem: `lost-replies anomaly ${JSON.stringify(r.anomaly)}: one of ${LOST_REPLY_ANOMALIES.join(', ')}`,
        };
      return { expect: { checker: 'lost-replies', anomaly: r.anomaly as LostReplyAnomaly } };
    }
  }
  const sig = readSignature(raw);
  if (typeof sig !== 'string') return { expect: sig };
  const findings = LOST_REPLY_ANOMALIES.map((a) => `"${a}"`).join(' | ');
  return {
    problem: `${sig}; or a lost-replies finding { "checker": "lost-replies", "anomaly": ${findings} }; or "clean"`,
  };
}

/** The kinds of lost-replies finding a run's results carry, in LOST_REPLY_ANOMALIES order. Pure. */
export function lostReplyFindings(results: Pick<RunResults, 'checkers'>): LostReplyAnomaly[] {
  const r = results.checkers?.['lost-replies'];
  if (!r) return [];
  const present: Record<LostReplyAnomaly, boolean> = {
    'orphaned-lock': (r.orphans?.length ?? 0) > 0,
    'never-released': (r.neverReleased?.length ?? 0) > 0,
    'released-another': (r.releasedAnother?.length ?? 0) > 0,
    'double-ownership': (r.doubleOwnership?.length ?? 0) > 0,
  };
  return LOST_REPLY_ANOMALIES.filter((a) => present[a]);
}

/** What one run showed, as the expectation weighs it. */
export interface RunShows {
  signature: FailureSignature | null;
  findings: readonly LostReplyAnomaly[];
}

/**
 * Whether a run that followed its script shows what is expected: the signature (any failure when none is
 * expected), the finding (whatever the verdict), or nothing at all for `clean`. Pure.
 */
export function meetsExpect(e: ReplayExpect | null, shows: RunShows): boolean {
  if (e === null) return shows.signature !== null;
  if (e === CLEAN) return shows.signature === null && shows.findings.length === 0;
  if (isLostReplyExpect(e)) return shows.findings.includes(e.anomaly);
  return sameSignature(shows.signature, e);
}

/**
 * Whether the run showed anything this expectation weighs: a failure, or — when a finding or `clean` is expected —
 * a lost-replies finding too. A signature's replay leaves findings aside: they are informational there.
 */
export function showsAnything(e: ReplayExpect | null, shows: RunShows): boolean {
  const weighsFindings = e === CLEAN || isLostReplyExpect(e);
  return shows.signature !== null || (weighsFindings && shows.findings.length > 0);
}

/** `lost-replies/orphaned-lock (a liveness finding: the verdict may be VALID)`: the expectation in one line. */
export function describeExpect(e: ReplayExpect | null): string {
  if (e === null) return 'any failure';
  if (e === CLEAN) return 'clean: no failure and no lost-replies finding';
  if (isLostReplyExpect(e)) return `lost-replies/${e.anomaly} (a liveness finding: the verdict may be VALID)`;
  return describeSignature(e);
}

/** What a run showed, in one line: its failure's signature and its lost-replies findings. */
export function describeShows(shows: RunShows): string {
  const parts = [
    ...(shows.signature ? [describeSignature(shows.signature)] : []),
    ...shows.findings.map((f) => `lost-replies/${f}`),
  ];
  return parts.length ? parts.join(', ') : 'no failure and no lost-replies finding';
}
