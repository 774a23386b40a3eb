/**
 * A cell of what one lock does when a reply is lost after the server acted (issue 46): a shipped scenario that
 * drops the reply to its client's acquire, replayed with this row's lock, and the row's prediction of what each run
 * shows, written before the cell's first run. The three classes of research anchors §2.2 are what it predicts:
 * - *self-blocking* (a retried `SET NX` finds its own key and waits: fencepost's `redis` recipe) — an orphaned lock
 *   within the TTL, `{ checker: 'lost-replies', anomaly: 'orphaned-lock' }`;
 * - *double-counting* (a reentrant acquire run twice) — `double-ownership`: the gallery's reentrant-resend.ts, no row;
 * - *idempotent* (the retry finds its own node by a name the server ties to it: Curator's protection mode, the
 *   zookeeper recipe's per-client prefix) — `'clean'`: no failure and no lost-replies finding.
 * Not a column every lock answers: the scenario aims at one lock's own request (a create, a SET answered OK), so a row
 * declares the cells its lock has (locks/<name>/row.ts `lostReplies`), as it declares its margins. The nightly runs
 * one a night, by turn (nightly/lost-reply-cells.ts).
 */
export interface LostReplyCell {
  /** Unique across the rows: the nightly names the cell by its lock and this. */
  readonly id: `lost-reply-${string}`;
  readonly title: string;
  /** The scenario, from the repository's root (`scenarios/self-blocking.json`); run with the row's lock. */
  readonly scenario: string;
  /** What every run that follows its script shows: the row's prediction, as a replay counts it. */
  readonly expect: LostReplyPrediction;
  /** Why, written before the cell's first run. */
  readonly why: string;
  /** What its replay showed, with the command and date: the findings page's measured column (absent: not yet). */
  readonly measured?: string;
}

/**
 * A prediction in scenario/scenario-expect.ts's words (a ReplayExpect: a lost-replies finding, or `clean`), spelt here so
 * the rows do not import the repro room, which imports theirs; nightly/lost-reply-cells.test.ts reads each back.
 */
export type LostReplyPrediction =
  | {
      readonly checker: 'lost-replies';
      readonly anomaly: 'orphaned-lock' | 'never-released' | 'released-another' | 'double-ownership';
    }
  | 'clean';
