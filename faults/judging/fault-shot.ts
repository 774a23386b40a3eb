import type { StoryStepId } from '../fault-facts.ts';
import type { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import type { Evidence } from '../evidence.ts';
import type { Decoded } from '../evidence-fields.ts';
import type { LockStopRecord } from '../evidence-parts.ts';
import type { FaultName } from '../fault-names.ts';

/**
 * How one step of a shot's story went: `done` (it happened: the ops that prove it), `held` (the lock stopped the
 * story here, observably: the story is complete and the lock passed), `missing` (it did not happen: why) or
 * `not-reached` (an earlier step was missing or held).
 */
export type StepStatus = 'done' | 'held' | 'missing' | 'not-reached';

export interface StoryStep {
  id: StoryStepId;
  status: StepStatus;
  /** What the history shows for it, in words, with the ops' history indexes (`#345`); or why it is missing. */
  evidence: string;
}

/** One injection of a fault (a `start` record) and what the history says it did. */
export interface FaultShot {
  /** History index of the fault's `start` record. */
  index: number;
  hit: boolean;
  /**
   * For a hit, what it acted on; for a miss, why it is not a hit. For a fault with a story (an aimed fault), the
   * story's steps told in one line: `p2 stopped after read #345 → stopped 2.4 s ≥ TTL 2.0 s → …`.
   */
  evidence: string;
  /** For a fault with a story: each step as judged, in the catalogue's order (faults/catalogue.ts). */
  story?: StoryStep[];
}

/** What a judge sees of one shot: its records, their evidence decoded, the history, each client process's ops. */
export interface ShotRecords<F extends FaultName = FaultName> {
  start: Op;
  /** The `end` record that closed it; undefined when the history ended first. */
  end: Op | undefined;
  /** What the two records say, read as fault F's evidence (faults/evidence.ts). */
  ev: Evidence<F>;
  history: History;
  byProcess: ReadonlyMap<number, readonly Op[]>;
}

/** What one shot of fault F did, from its records and the history. Pure. */
export type Judge<F extends FaultName = FaultName> = (shot: ShotRecords<F>) => FaultShot;

export const hitOrMiss = (start: Op, why: string | null, evidence: string): FaultShot => ({
  index: start.index,
  hit: why === null,
  evidence: why ?? evidence,
});

/**
 * A client with a lock process (a lock in another language) is paused only when both are — every process of the lock
 * process's tree (nemesis/client-target.ts): a wrapper's child or a helper that ran on kept its session or lease
 * alive, so the pause tested nothing. Null when it was stopped too, or there is none.
 */
export function lockProcessRanOn(p: Decoded<LockStopRecord>): string | null {
  if (p.lockStopped !== false) return null;
  const tree = p.lockTree;
  if (!tree)
    return `its lock process (pid ${String(p.lockPid)}) was not stopped with it: the lock's own threads kept running`;
  return `its lock process's tree (pid ${String(p.lockPid)}, held by ${tree.by}) was not all stopped with it: ${tree.running.length} of ${tree.pids.length} processes kept running (pid ${tree.running.join(', ') || 'none found'}), and with them the lock's session`;
}

/**
 * The evidence's words for a lock process stopped with its client — its whole tree, and how it was held — or '' for
 * a record without a tree or a client without a lock process.
 */
export function lockStoppedWith(p: Decoded<LockStopRecord>): string {
  const tree = p.lockTree;
  return p.lockStopped === true && tree
    ? `its lock process (pid ${String(p.lockPid)}) with it, all ${tree.pids.length} processes of its tree (held by ${tree.by})`
    : '';
}
