import type { WriteValue } from '../../history/bank.ts';
import { fmtAt, plural } from '../format.ts';
import { pairValue, processLabel } from '../op-pairs.ts';
import { opIndexes, type Finding, type StoryInput } from './finding.ts';

/** Fencing at work: the writes the resource refused because their token had been superseded. */

export function staleWriteFinding(input: StoryInput): Finding[] {
  const stale = input.index.pairs.filter(
    (p) => p.f === 'write' && p.outcome === 'fail' && p.completion?.error === 'stale-token',
  );
  if (stale.length === 0) return [];
  const shown = stale.slice(0, 3).map((p) => {
    const v = pairValue(p) as Partial<WriteValue>;
    return `${processLabel(p.process)}'s write of ${v.to ?? '?'}${v.token ? ` with token ${v.token}` : ''} at ${fmtAt(p.endMs)}`;
  });
  return [
    {
      id: 'stale-writes',
      kind: 'stale-writes',
      severity: 'good',
      title: `Fencing rejected ${plural(stale.length, 'stale write')}`,
      sentences: [
        `The resource refused writes from holders whose token had been superseded: ${shown.join('; ')}${stale.length > 3 ? `; and ${stale.length - 3} more` : ''}.`,
      ],
      fromMs: stale[0].startMs,
      toMs: stale[Math.min(2, stale.length - 1)].endMs ?? input.index.endMs,
      ops: stale.slice(0, 20).flatMap((p) => opIndexes(p)),
    },
  ];
}
