import type { PromiseClass, PromiseOverlap, PromiseSide } from '../checkers/promise/promise-overlaps.ts';
import { PROMISE_CLASS_WORDS } from './findings/promise.ts';

/**
 * What the timeline draws of the promise checker (checkers/promise/): for every hold in a classified overlap, the
 * window the lock promised it, on its holder's lane beside the hold it believed it had — so a grant inside another's
 * window (a broken promise) or a hold running past its own (outlived) shows as the two bars disagreeing.
 */
export interface PromiseWindow {
  /** The holder's lane. */
  l: number;
  /** The promise, ms since the start. */
  s: number;
  e: number;
  /** Where its own clock, set back by a fault, still showed it inside (ms); absent when no clock fault moved it. */
  oe?: number;
  /** The gravest class of its overlaps: an index into PROMISE_CLASSES. */
  c: number;
  /** For the hover: whose promise, the class and the other holders. */
  label: string;
}

/** Gravest first: a hold in a broken promise and an outlived overlap is drawn as the broken promise. */
export const PROMISE_CLASSES: readonly PromiseClass[] = ['broke', 'outlived', 'own-clock', 'unknown'];

/** Their colours, by class, here and on the page (the page data carries them: report-page.ts). */
export const PROMISE_COLOURS: readonly string[] = ['#c62828', '#b45309', '#7c3aed', '#667085'];

const round = (ns: number) => Math.round(ns / 1e4) / 100;

/**
 * One window per hold (a hold can be in several overlaps), from the overlaps' both sides; a hold whose promise is not
 * known has none to draw, and a hold whose process has no lane (not drawn in a windowed page) is left out.
 */
export function promiseWindows(
  overlaps: readonly PromiseOverlap[],
  laneOf: (process: number) => number | undefined,
): PromiseWindow[] {
  const byHold = new Map<string, { side: PromiseSide; lane: number; c: number; others: Set<number> }>();
  for (const o of overlaps) {
    const c = PROMISE_CLASSES.indexOf(o.class);
    for (const [side, other] of [
      [o.a, o.b],
      [o.b, o.a],
    ]) {
      const lane = laneOf(side.process);
      if (!side.window || lane === undefined) continue;
      const key = `${side.process}|${side.acquireIndex}`;
      const seen = byHold.get(key) ?? { side, lane, c, others: new Set<number>() };
      seen.c = Math.min(seen.c, c);
      seen.others.add(other.process);
      byHold.set(key, seen);
    }
  }
  return [...byHold.values()]
    .sort((x, y) => x.side.window!.start - y.side.window!.start || x.lane - y.lane)
    .map(({ side, lane, c, others }) => ({
      l: lane,
      s: round(side.window!.start),
      e: round(side.window!.end),
      ...(side.ownWindow ? { oe: round(side.ownWindow.end) } : {}),
      c,
      label: `p${side.process}'s promise — ${PROMISE_CLASS_WORDS[PROMISE_CLASSES[c]]} (overlapped p${[...others].join(', p')})`,
    }));
}
