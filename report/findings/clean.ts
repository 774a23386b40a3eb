import { fmtSigned, plural } from '../format.ts';
import type { Finding, StoryInput } from './finding.ts';

/** The card of a run with no anomaly: how many writes were checked, and each account's books balanced. */

export function cleanFinding(input: StoryInput): Finding {
  const writes = input.index.pairs.filter((p) => p.f === 'write' && p.outcome === 'ok').length;
  const sentences = [`The checkers found nothing wrong in ${plural(writes, 'committed write')}.`];
  for (const fr of input.index.finalReads) {
    const sum = fr.ledger.reduce((s, r) => s + r.delta, 0);
    const expected = fr.initialBalance + sum;
    sentences.push(
      expected === fr.balance
        ? `Account ${fr.account}: final balance ${fr.balance} = opening ${fr.initialBalance} + the ${plural(fr.ledger.length, 'committed delta')} (${fmtSigned(sum)}).`
        : `Account ${fr.account}: final balance ${fr.balance}, but opening ${fr.initialBalance} + committed deltas = ${expected}.`,
    );
  }
  return {
    id: 'clean',
    kind: 'clean',
    severity: 'good',
    title: 'No anomalies',
    sentences,
    fromMs: 0,
    toMs: input.index.endMs,
    ops: [],
  };
}
