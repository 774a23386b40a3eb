import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { DECIDING_CHECKERS } from './check-run.ts';
import type { LostUpdate, Overlap, RunResults } from './run-results.ts';
import type { FaultShot } from '../faults/judging/fault-shot.ts';
import type { Op } from '../history/op.ts';
import { processOf } from '../faults/evidence.ts';

/**
 * What a failure is, lenient about pids, indexes and values and strict about the bug: which checker found it, what
 * kind of anomaly, and which fault's story completed in the run. A replay or a shrink counts a failure as the
 * original only when the signatures match, so one bug is never swapped for another (a paused holder's lost update
 * for a restart-empty one). Pure, from a run's results.
 */
export interface FailureSignature {
  checker: DecidingChecker;
  anomaly: AnomalyKind;
  /**
   * The fault whose whole story (every step done, none held) tells the failure's anomaly — the same event, by the ops
   * its story cites — or null for none.
   */
  story: FaultName | null;
}

export type DecidingChecker = (typeof DECIDING_CHECKERS)[number];

/** Each deciding checker's anomaly, in its words. */
export const ANOMALY_OF = {
  'lost-updates': 'lost-update',
  'mutual-exclusion': 'overlap',
  'fencing-order': 'stale-write-accepted',
  'token-order': 'token-regression',
  linearizable: 'not-linearizable',
  promise: 'broken-promise',
} as const satisfies Record<DecidingChecker, string>;
export type AnomalyKind = (typeof ANOMALY_OF)[DecidingChecker];

/**
 * The signature of a failing run (the first deciding checker, in DECIDING_CHECKERS order, that found one), or null.
 * `shots` (shotIndex of its history) ties each shot to its history: the story named is the one whose shot tells the
 * run's anomaly — the same event, by the ops its story cites — so in a run with many faults a loss under
 * restart-empty is never put down to a pause-holder story told later between the same clients.
 */
export function failureSignature(
  r: Pick<RunResults, 'checkers' | 'faultHits' | 'lostUpdateDetails' | 'overlapDetails'>,
  shots?: ShotIndex,
): FailureSignature | null {
  const checker = DECIDING_CHECKERS.find((c) => r.checkers?.[c]?.valid === false);
  if (!checker) return null;
  return {
    checker,
    anomaly: ANOMALY_OF[checker],
    story: shots ? storyOfAnomalies(r, shots) : wholeStory(r.faultHits ?? {}),
  };
}

/**
 * The fault whose whole-story shot tells one of the run's anomalies (the first, in the results' order, that any shot
 * tells), or null when none does. Older results whose lost updates carry no op indexes are matched by client, as
 * they were: the shot's holder wrote in the anomaly.
 */
function storyOfAnomalies(
  r: Pick<RunResults, 'faultHits' | 'lostUpdateDetails' | 'overlapDetails'>,
  shots: ShotIndex,
): FaultName | null {
  for (const anomaly of anomaliesOf(r)) {
    const told = FAULT_NAMES.find((f) => tellingShot(r, f, shots, anomaly) !== undefined);
    if (told) return told;
  }
  return null;
}

/** A lost update or an overlap: what a story can tell. */
export type Anomaly = { lost: LostUpdate } | { overlap: Overlap };

export function anomaliesOf(r: Pick<RunResults, 'lostUpdateDetails' | 'overlapDetails'>): Anomaly[] {
  const lost = (r.lostUpdateDetails ?? []).map((l) => ({ lost: l }));
  return lost.length ? lost : (r.overlapDetails ?? []).map((o) => ({ overlap: o }));
}

/** The two client processes of an anomaly: the erased write's and the eraser's, or the two overlapping holders. */
export function anomalyProcesses(a: Anomaly): [number, number] {
  return 'lost' in a ? [a.lost.lost.process, a.lost.overwrittenBy.process] : [a.overlap.a.process, a.overlap.b.process];
}

/**
 * The whole-story shot of `fault` that tells `anomaly` (the last, if several): for a lost update, a shot whose story
 * cites both of its writes (`wrote #465`; a cite of a write's invoke counts for its completion); for an overlap, or
 * a lost update recorded without its op indexes, a shot whose holder is one of the two clients and which struck
 * while both held.
 */
export function tellingShot(
  r: Pick<RunResults, 'faultHits'>,
  fault: FaultName,
  shots: ShotIndex,
  anomaly: Anomaly,
): FaultShot | undefined {
  const pair = anomalyProcesses(anomaly);
  const whole = (r.faultHits[fault]?.shots ?? []).filter(
    (s) => s.hit && s.story?.length && s.story.every((st) => st.status === 'done'),
  );
  const tells = (s: FaultShot): boolean => {
    if (
      'lost' in anomaly &&
      anomaly.lost.lostOpIndex !== undefined &&
      anomaly.lost.overwrittenByOpIndex !== undefined
    ) {
      const cited = citedOps(s, shots.partners);
      return cited.has(anomaly.lost.lostOpIndex) && cited.has(anomaly.lost.overwrittenByOpIndex);
    }
    if (!pair.includes(shots.holders.get(s.index) ?? -1)) return false;
    if (!('overlap' in anomaly)) return true;
    const at = shots.times.get(s.index);
    const { a, b } = anomaly.overlap;
    return (
      at === undefined || (at >= Math.min(a.acquiredAt, b.acquiredAt) && at <= Math.max(a.releasedAt, b.releasedAt))
    );
  };
  return whole.filter(tells).at(-1);
}

/** The history indexes a shot's story cites (`#345`), each with its partner op (an invoke's completion or the reverse). */
function citedOps(s: FaultShot, partners: ReadonlyMap<number, number>): Set<number> {
  const cited = new Set<number>();
  for (const step of s.story ?? [])
    for (const m of step.evidence.matchAll(/#(\d+)/g)) {
      const i = Number(m[1]);
      cited.add(i);
      const partner = partners.get(i);
      if (partner !== undefined) cited.add(partner);
    }
  return cited;
}

/**
 * The first fault (catalogue order) with a shot whose story completed with every step done — a held step is the lock
 * passing, not a failure's cause — among the shots `which` accepts (by the shot's history index).
 */
export function wholeStory(
  hits: RunResults['faultHits'],
  which: (index: number) => boolean = () => true,
): FaultName | null {
  for (const f of FAULT_NAMES) {
    const shots = hits[f]?.shots ?? [];
    if (
      shots.some((s) => which(s.index) && s.hit && s.story?.length && s.story.every((step) => step.status === 'done'))
    )
      return f;
  }
  return null;
}

/**
 * What ties a run's shots to its history: the client process each aimed shot struck (its aim's, or delay-write's own
 * `process`) and the time of its start record, by that record's index; and each client op's partner (an invoke's
 * completion, a completion's invoke), so a story's cite of either names the op.
 */
export interface ShotIndex {
  holders: ReadonlyMap<number, number>;
  times: ReadonlyMap<number, number>;
  partners: ReadonlyMap<number, number>;
}

export function shotIndex(ops: readonly Op[]): ShotIndex {
  const holders = new Map<number, number>();
  const times = new Map<number, number>();
  const partners = new Map<number, number>();
  const open = new Map<number, number>();
  for (const op of ops) {
    if (typeof op.process === 'number') {
      if (op.type === 'invoke') open.set(op.process, op.index);
      else {
        const invoke = open.get(op.process);
        open.delete(op.process);
        if (invoke !== undefined) partners.set(invoke, op.index).set(op.index, invoke);
      }
      continue;
    }
    if (op.process !== 'nemesis' || (op.value as { phase?: unknown } | null)?.phase !== 'start') continue;
    const who = processOf(op);
    if (who !== undefined) holders.set(op.index, who);
    times.set(op.index, op.time);
  }
  return { holders, times, partners };
}

export function sameSignature(a: FailureSignature | null, b: FailureSignature | null): boolean {
  return a !== null && b !== null && a.checker === b.checker && a.anomaly === b.anomaly && a.story === b.story;
}

/** `lost-updates/lost-update after pause-holder's story`: the one line a replay and a shrink print it as. */
export function describeSignature(s: FailureSignature | null): string {
  if (!s) return 'no failure';
  return `${s.checker}/${s.anomaly}${s.story ? ` after ${s.story}'s story` : ' with no whole fault story'}`;
}

/** A signature read from a file (a bundle, a scenario's `expect`): the value, or what is wrong with it. */
export function readSignature(raw: unknown): FailureSignature | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'a signature is { "checker": …, "anomaly": …, "story": <fault> | null }';
  const r = raw as Record<string, unknown>;
  const checker = r.checker as DecidingChecker;
  if (!(DECIDING_CHECKERS as readonly string[]).includes(checker))
    return `signature checker ${JSON.stringify(r.checker)}: one of ${DECIDING_CHECKERS.join(', ')}`;
  if (r.anomaly !== ANOMALY_OF[checker])
    return `signature anomaly ${JSON.stringify(r.anomaly)}: ${checker} finds ${ANOMALY_OF[checker]}`;
  if (r.story !== null && !(FAULT_NAMES as readonly unknown[]).includes(r.story))
    return `signature story ${JSON.stringify(r.story)}: a fault of the catalogue, or null`;
  return { checker, anomaly: ANOMALY_OF[checker], story: r.story as FaultName | null };
}
