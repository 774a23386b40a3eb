import { evidenceOf, headerOf } from '../faults/evidence.ts';
import { FAULT_CATALOGUE, faultFacts } from '../faults/catalogue.ts';
import type { Judge } from '../faults/judging/fault-shot.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { FaultShot, ShotRecords } from '../faults/judging/fault-shot.ts';

export type { FaultShot } from '../faults/judging/fault-shot.ts';

/**
 * Per fault, in the run's results: how often it fired, how often it acted (by the fault's own evidence: see its row's judge;
 * for a fault aimed at the lock, how often its story completed: faults/judging/story.ts), and each shot's evidence. `hit`
 * is a number for every fault: a fault that fired but did nothing tested nothing.
 */
export interface FaultHitCount {
  fired: number;
  hit: number;
  shots: FaultShot[];
}

/** One shot of catalogue fault `f`, judged by its own judge on its own evidence (its row's `judge`, faults/<name>/judge.ts). */
function judgeShot<F extends FaultName>(f: F, records: Omit<ShotRecords<F>, 'ev'>): FaultShot {
  const judge: Judge<F> = FAULT_CATALOGUE[f].judge;
  return judge({ ...records, ev: evidenceOf(f, records.start, records.end) });
}

/**
 * Fired and hit counts per fault, from the `start` records of the nemesis in the history. Pure. A fault the catalogue
 * does not know (from a newer fencepost) is a miss, said so.
 */
export function faultHits(input: History | readonly Op[]): Record<string, FaultHitCount> {
  const h = History.of(input);
  const history = h.ops;
  const byProcess = new Map<number, Op[]>();
  for (const op of history) {
    if (typeof op.process === 'number') {
      const list = byProcess.get(op.process) ?? [];
      list.push(op);
      byProcess.set(op.process, list);
    }
  }
  const out: Record<string, FaultHitCount> = {};
  for (const op of history) {
    if (op.process !== 'nemesis' || headerOf(op).phase !== 'start') continue;
    const count = (out[op.f] ??= { fired: 0, hit: 0, shots: [] });
    count.fired++;
    const shot: FaultShot =
      op.type === 'fail'
        ? { index: op.index, hit: false, evidence: headerOf(op).note || 'its start failed (no reason recorded)' }
        : faultFacts(op.f)
          ? judgeShot(op.f as FaultName, { start: op, end: endOf(history, op), history: h, byProcess })
          : { index: op.index, hit: false, evidence: `this fencepost has no judge for a fault named ${op.f}` };
    count.shots.push(shot);
    if (shot.hit) count.hit++;
  }
  return out;
}

/** The `end` record that closes the injection `start` (the next one of the same fault: a fault never overlaps itself). */
export function endOf(history: readonly Op[], start: Op): Op | undefined {
  for (let i = history.indexOf(start) + 1; i < history.length; i++) {
    const op = history[i];
    if (op.process !== 'nemesis' || op.f !== start.f) continue;
    const { phase } = headerOf(op);
    if (phase === 'end') return op;
    if (phase === 'start') return undefined;
  }
  return undefined;
}

/**
 * Why the verdict can't be `valid`: each fault of the run (`runFaults`, the run's fault list) that never fired,
 * or fired and never acted by its own evidence (its judge). A lock that survived a fault that did nothing survived
 * nothing. Pure; one reason string per fault.
 */
export function faultHitReasons(
  hits: Readonly<Record<string, FaultHitCount>>,
  runFaults: readonly string[],
  skipped: Readonly<Record<string, string>> = {},
): string[] {
  const reasons: string[] = [];
  for (const f of new Set(runFaults)) {
    const c = hits[f];
    if ((!c || c.fired === 0) && Object.hasOwn(skipped, f)) {
      reasons.push(`${f} never fired: the run left it out (${skipped[f]}); drop it from --nemesis`);
    } else if (!c || c.fired === 0) {
      reasons.push(
        `${f} never fired: the history has no injection of it (the run ended before its turn, or the fault found no opportunity, e.g. no client entered its critical section where it could reach it: see the run's log); run longer or lower --nemesis-interval`,
      );
    } else if (!c.hit) {
      const times = `${c.fired} time${c.fired === 1 ? '' : 's'}`;
      const story = faultFacts(f)?.story;
      if (story) {
        const best = furthestShot(c.shots);
        const gap = best?.story?.find((s) => s.status === 'missing');
        reasons.push(
          `${f} fired ${times} but its story never completed${best ? ` (the furthest shot, #${best.index}, ${gap ? `stopped short of ${gap.id}, "${story.find((s) => s.id === gap.id)?.says}": ${gap.evidence}` : best.evidence})` : ''}`,
        );
        continue;
      }
      const first = c.shots.find((s) => !s.hit);
      reasons.push(
        `${f} fired ${times} but never ${faultFacts(f)?.hit ?? 'acted'}${first ? ` (first miss, #${first.index}: ${first.evidence})` : ''}`,
      );
    }
  }
  return reasons;
}

/** The shot whose story got furthest (most steps done): the one a reader learns most from. The first of equals. */
export function furthestShot(shots: readonly FaultShot[]): FaultShot | undefined {
  const doneSteps = (s: FaultShot) => s.story?.filter((x) => x.status === 'done').length ?? 0;
  return shots.reduce<FaultShot | undefined>(
    (best, s) => (!best || doneSteps(s) > doneSteps(best) ? s : best),
    undefined,
  );
}
