import { endOf } from '../fault-hits.ts';
import { evidenceOf, headerOf } from '../../faults/evidence.ts';
import { FAULT_CATALOGUE, grantReaderOf, type FaultName } from '../../faults/catalogue.ts';
import type { DroppedGrant } from '../../faults/judging/dropped-grant.ts';
import { accountOf } from '../../faults/judging/story-steps.ts';
import type { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';

export type { DroppedGrant } from '../../faults/judging/dropped-grant.ts';

/**
 * Every committed dropped grant in the history, in shot order: each shot of a fault that drops an acquire's reply,
 * read by that fault's own reader (its folder's dropped-grant.ts, the catalogue's `droppedGrant`). Pure.
 */
export function droppedGrants(history: History): DroppedGrant[] {
  const byProcess = new Map<number, Op[]>();
  for (const op of history.ops) {
    if (typeof op.process !== 'number') continue;
    const list = byProcess.get(op.process) ?? [];
    list.push(op);
    byProcess.set(op.process, list);
  }
  const out: DroppedGrant[] = [];
  for (const start of history.ops) {
    if (start.process !== 'nemesis' || start.type === 'fail' || headerOf(start).phase !== 'start') continue;
    if (!Object.hasOwn(FAULT_CATALOGUE, start.f)) continue;
    const f = start.f as FaultName;
    const read = grantReaderOf(f);
    const end = read && endOf(history.ops, start);
    const grant = read?.({ start, end, ev: evidenceOf(f, start, end), history, byProcess });
    if (grant) out.push(grant);
  }
  return out;
}

/** The first acquire of `account` that completed ok after `sinceNs`, by any client: the server had let the lock go. */
export function nextGrant(history: History, account: number, sinceNs: number): Op | undefined {
  return history.bank.acquires
    .filter((p) => accountOf(p.invoke) === account)
    .map((p): Op | null => p.completion)
    .filter((c): c is Op => !!c && c.type === 'ok' && c.time > sinceNs)
    .sort((a, b) => a.time - b.time)[0];
}
