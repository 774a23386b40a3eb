import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Journal } from '../history/journal.ts';
import type { Op } from '../history/op.ts';

/** A watch on the journal for one step of a story: settles with the op that took it. */
export interface StoryWatch {
  seen: Promise<Op>;
  /** Stops watching (the promise then never settles). Safe to call more than once. */
  stop(): void;
}

/**
 * Watches the ops as the journal takes them for the first one `took` says takes the step a fault's hold waits for
 * (faults/judging/story-steps.ts has the rules: OtherClientWrite, isOtherGrant), so the hold ends on the same rule the
 * judge reads the history by afterwards.
 */
export function watchFor(journal: Journal, took: (op: Op) => boolean): StoryWatch {
  let resolve!: (op: Op) => void;
  const seen = new Promise<Op>((r) => (resolve = r));
  const stop = journal.onOp((op) => {
    if (!took(op)) return;
    stop();
    resolve(op);
  });
  return { seen, stop };
}

/**
 * Waits until `ageMs` have passed since `sinceNs` on the history's clock (`nowNs`), the clock the judge reads the
 * story by — not for `ageMs` of timer: a Node timer may fire a millisecond early against that clock (its loop time
 * is cached), and a hold released at 1999 ms of a 2000 ms TTL is a story the judge refuses (CI saw it: delay-write
 * "held 1999 ms, less than the TTL"). Returns early only when `signal` aborts.
 */
export async function waitUntilAged(
  nowNs: () => number,
  sinceNs: number,
  ageMs: number,
  signal: AbortSignal,
  sleep: (ms: number, signal: AbortSignal) => Promise<unknown> = (ms, s) =>
    sleepFor(ms, undefined, { signal: s }).catch(() => {}),
): Promise<void> {
  for (;;) {
    const leftMs = ageMs - (nowNs() - sinceNs) / 1e6;
    if (leftMs <= 0 || signal.aborted) return;
    await sleep(Math.ceil(leftMs), signal);
  }
}
