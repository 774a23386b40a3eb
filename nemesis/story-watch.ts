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
 * (checkers/story-steps.ts has the rules: OtherClientWrite, isOtherGrant), so the hold ends on the same rule the
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
