import type { TokenRegression } from '../../checkers/fencing-order.ts';
import { fmtAt } from '../format.ts';
import { processLabel, type TimedPair } from '../op-pairs.ts';
import { opIndexes, type Finding, type StoryInput } from './finding.ts';

/** Fencing violations: the resource accepted a token lower than one it had already accepted. */

/**
 * The fencing-order checker's regressions. None when the checker gave none (no results, or it crashed): the
 * report names what the checker found and never re-applies its rule.
 */
export function regressions(input: StoryInput): readonly TokenRegression[] {
  return input.results.checkers?.['fencing-order']?.regressions ?? [];
}

/** With --fencing, the resource must never accept a token lower than one it already accepted. */
export function fencingViolations(input: StoryInput): Finding[] {
  if (!input.fencing) return [];
  return regressions(input).map((g, k) => {
    const w = input.index.writeById.get(g.writeId) ?? null;
    const prev = input.index.writeById.get(g.afterWriteId) ?? null;
    const who = (p: TimedPair | null) => (p ? `${processLabel(p.process)}'s ` : '');
    return {
      id: `fence-${k + 1}`,
      kind: 'fencing-violation' as const,
      severity: 'bad' as const,
      title: `Fencing violation on account ${g.account}: token ${g.token} accepted after token ${g.afterToken}`,
      sentences: [
        `${who(w)}write #${g.writeId} carried token ${g.token}${w?.endMs != null ? ` and committed at ${fmtAt(w.endMs)}` : ''}, after ${who(prev)}write #${g.afterWriteId} with the newer token ${g.afterToken} had been accepted: the resource let a superseded holder write.`,
      ],
      fromMs: prev?.startMs ?? w?.startMs ?? 0,
      toMs: w?.endMs ?? input.index.endMs,
      ops: opIndexes(w, prev),
    };
  });
}
