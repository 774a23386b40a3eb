import type { RunResults } from '../../checkers/run-results.ts';
import { plural } from '../format.ts';
import { checkerFindings } from './checker.ts';
import { cleanFinding } from './clean.ts';
import { fencingViolations } from './fencing.ts';
import type { Finding, StoryInput } from './finding.ts';
import { groupLostUpdates, lostUpdateFinding } from './lost-update.ts';
import { overlapFinding, overlapGroups, suspectedOverlapsFinding } from './overlap.ts';
import { livenessFinding } from './liveness.ts';
import { pausedHolderFindings } from './paused-holder.ts';
import { promiseFindings } from './promise.ts';
import { staleWriteFinding } from './stale-writes.ts';

/**
 * What went wrong, in sentences derived from the data: the part of a report an engineer reads first. Each kind of
 * finding has its file here (lost-update, overlap, fencing, paused-holder, promise, stale-writes, checker, clean); this one
 * puts them in the order a person reads them, and says the verdict in one line. Pure.
 */

export type { Finding, FindingKind, StoryInput, WriteStory } from './finding.ts';

/** All findings, anomalies first (broken promises, lost updates, overlaps, fencing violations, linearizability), then context. */
export function findings(input: StoryInput): Finding[] {
  const lost = groupLostUpdates(input.results.lostUpdateDetails ?? []).map((g, i) =>
    lostUpdateFinding(input, g, i + 1),
  );
  const details = input.results.overlapDetails ?? [];
  const overlaps = overlapGroups(details.filter((o) => o.kind === 'confirmed')).map((g, i) =>
    overlapFinding(input, g, i + 1),
  );
  const suspected = suspectedOverlapsFinding(
    input,
    details.filter((o) => o.kind !== 'confirmed'),
  );
  const fences = fencingViolations(input);
  const checkers = checkerFindings(input);
  const pauses = pausedHolderFindings(input);
  const stale = staleWriteFinding(input);
  const liveness = livenessFinding(input);
  const promises = promiseFindings(input);
  // The lock's broken promises first: where it granted inside a live lease, that explains the lost updates after it.
  const bad = [
    ...promises.filter((p) => p.severity === 'bad'),
    ...lost,
    ...overlaps,
    ...fences,
    ...checkers.filter((c) => c.severity === 'bad'),
    ...(liveness?.severity === 'bad' ? [liveness] : []),
  ];
  const rest = [
    ...pauses,
    ...promises.filter((p) => p.severity !== 'bad'),
    ...stale,
    ...suspected,
    ...checkers.filter((c) => c.severity !== 'bad'),
    ...(liveness && liveness.severity !== 'bad' ? [liveness] : []),
  ];
  if (bad.length === 0 && input.results.valid !== false) rest.unshift(cleanFinding(input));
  return [...bad, ...rest];
}

/** The verdict as one line: what a person should take away before reading anything else. */
export function headline(results: Partial<RunResults>, all: readonly Finding[]): string {
  const lost = results.lostUpdates ?? (results.lostUpdateDetails ?? []).length;
  const parts: string[] = [];
  if (lost > 0) parts.push(plural(lost, 'lost update'));
  const confirmed =
    results.confirmedOverlaps ?? (results.overlapDetails ?? []).filter((o) => o.kind === 'confirmed').length;
  if (confirmed > 0) parts.push(plural(confirmed, 'confirmed lock overlap'));
  const fences = all.filter((f) => f.kind === 'fencing-violation').length;
  if (fences > 0) parts.push(plural(fences, 'fencing violation'));
  const tokenViolations = results.checkers?.['token-order']?.violations;
  if (Array.isArray(tokenViolations) && tokenViolations.length > 0)
    parts.push(plural(tokenViolations.length, 'token-order violation'));
  const broken = results.checkers?.promise?.counts?.broke;
  if (typeof broken === 'number' && broken > 0) parts.push(plural(broken, 'broken promise'));
  if (all.some((f) => f.kind === 'linearizability')) parts.push('not linearizable');
  // Named apart from the safety findings: a stall past the user's --max-stall is slow, not wrong.
  const live = results.liveness;
  if (live && live.valid === false && live.maxStallMs !== null)
    parts.push(`liveness: a ${(live.longestStallMs / 1000).toFixed(1)} s stall, past --max-stall=${live.maxStallMs}`);
  if (results.valid === false) return parts.length > 0 ? parts.join(', ') : 'a checker found the history invalid';
  if (results.valid === 'unknown') {
    // The run's own reasons first (no progress, a targeted fault that never hit…): they say why nothing was
    // proven; then the checkers that could not decide.
    const why = [
      ...(Array.isArray(results.unknownReasons) ? results.unknownReasons.map(String) : []),
      ...all.filter((f) => f.kind === 'undecided').map((f) => f.title),
    ];
    return `undecided${why.length ? `: ${why.join('; ')}` : ''}${parts.length ? ` (${parts.join(', ')})` : ''}`;
  }
  const stale = results.staleWritesRejected ?? 0;
  return `no anomalies${stale > 0 ? `; fencing rejected ${plural(stale, 'stale write')}` : ''}`;
}
