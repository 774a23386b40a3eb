import type { Overlap } from '../../checkers/run-results.ts';
import { faultLabel, faultsDuring } from '../../history/fault-windows.ts';
import { fmtAt, fmtMs, plural } from '../format.ts';
import { processLabel } from '../op-pairs.ts';
import type { Finding, StoryInput } from './finding.ts';

/**
 * Two holders of one lock at once: a card per confirmed hold (the resource saw the critical sections interleave),
 * one note for all the suspected ones (the clients' view only).
 */

/**
 * Confirmed overlaps that share one hold are one story: a paused holder overlaps every client that took the lock
 * during its pause. Overlap times are history times (ns since start), like every `time` in the journal.
 */
export function overlapGroups(list: readonly Overlap[]): Overlap[][] {
  const groups = new Map<string, Overlap[]>();
  for (const o of list) {
    const key = `${o.account}:${o.a.process}:${o.a.acquireIndex}`;
    const g = groups.get(key) ?? [];
    g.push(o);
    groups.set(key, g);
  }
  return [...groups.values()];
}

export function overlapFinding(input: StoryInput, group: Overlap[], n: number): Finding {
  const a = group[0].a;
  const account = group[0].account;
  const span = (x: Overlap['a']) => `${fmtAt(x.acquiredAt / 1e6)}–${fmtAt(x.releasedAt / 1e6)}`;
  const both = (o: Overlap) =>
    Math.max(0, Math.min(o.a.releasedAt, o.b.releasedAt) - Math.max(o.a.acquiredAt, o.b.acquiredAt)) / 1e6;
  const others = group.map((o) => `${processLabel(o.b.process)} (${span(o.b)}, both for ${fmtMs(both(o))})`);
  const sentences = [
    `${processLabel(a.process)} believed it held the lock on account ${account} from ${fmtAt(a.acquiredAt / 1e6)} to ${fmtAt(a.releasedAt / 1e6)}; ` +
      `${group.length === 1 ? 'so did' : `${group.length} other holders did too:`} ${others.slice(0, 6).join(', ')}${others.length > 6 ? ` and ${others.length - 6} more` : ''}.`,
  ];
  const evidence = [...new Set(group.map((o) => o.evidence).filter((e): e is string => typeof e === 'string'))];
  if (evidence.length > 0)
    sentences.push(
      `Confirmed by the ledger: ${evidence[0].replace(/\.$/, '')}${evidence.length > 1 ? ` (and ${evidence.length - 1} more like it)` : ''}.`,
    );
  else sentences.push('Confirmed: the resource saw their critical sections interleave.');
  const from = Math.min(...group.map((o) => Math.min(o.a.acquiredAt, o.b.acquiredAt))) / 1e6;
  const to = Math.max(...group.map((o) => Math.max(o.a.releasedAt, o.b.releasedAt))) / 1e6;
  const faults = faultsDuring(input.faults, from, to, input.index.endMs);
  if (faults.length > 0) sentences.push(`Active then: ${faults.map(faultLabel).join('; ')}.`);
  return {
    id: `overlap-${n}`,
    kind: 'overlap',
    severity: 'bad',
    title:
      group.length === 1
        ? `Two holders on account ${account} at once: ${processLabel(a.process)} and ${processLabel(group[0].b.process)} (confirmed)`
        : `${processLabel(a.process)}'s hold on account ${account} overlapped ${group.length} other holds (confirmed)`,
    sentences,
    fromMs: from,
    toMs: to,
    ops: [a.acquireIndex, ...group.map((o) => o.b.acquireIndex)].filter((i) => typeof i === 'number'),
  };
}

/**
 * Suspected overlaps (the clients' view only) are one note: a paused holder overlaps every client that took the
 * lock during its pause, and a card each would bury the anomalies.
 */
export function suspectedOverlapsFinding(input: StoryInput, list: Overlap[]): Finding[] {
  if (list.length === 0) return [];
  const pairs = list
    .slice(0, 4)
    .map(
      (o) =>
        `${processLabel(o.a.process)} and ${processLabel(o.b.process)} on account ${o.account} (${fmtMs(Math.max(0, Math.min(o.a.releasedAt, o.b.releasedAt) - Math.max(o.a.acquiredAt, o.b.acquiredAt)) / 1e6)})`,
    );
  const from = Math.min(...list.map((o) => Math.min(o.a.acquiredAt, o.b.acquiredAt))) / 1e6;
  const to = Math.max(...list.map((o) => Math.max(o.a.releasedAt, o.b.releasedAt))) / 1e6;
  return [
    {
      id: 'overlaps-suspected',
      kind: 'overlap',
      severity: 'note',
      title: `${plural(list.length, 'suspected lock overlap')} (clients' view; no damage seen by the resource)`,
      sentences: [
        `Two clients believed they held the same lock at once: ${pairs.join('; ')}${list.length > 4 ? `; and ${list.length - 4} more` : ''}. ` +
          "The ledger shows no interleaved writes for these pairs, so they are not anomalies by themselves — but they show the lock's exclusion failing.",
      ],
      fromMs: from,
      toMs: to,
      ops: list.slice(0, 50).flatMap((o) => [o.a.acquireIndex, o.b.acquireIndex]),
    },
  ];
}
