import type { StoryStepId } from '../history/fault-catalogue.ts';
import type { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import { isRecord } from '../common/is-record.ts';

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
  /** For a fault with a story: each step as judged, in the catalogue's order (history/fault-catalogue.ts). */
  story?: StoryStep[];
}

/** What a judge sees of one shot: its records, the history, and each client process's ops in order. */
export interface ShotRecords {
  start: Op;
  /** The `end` record that closed it; undefined when the history ended first. */
  end: Op | undefined;
  history: History;
  byProcess: ReadonlyMap<number, readonly Op[]>;
}

/** What one shot of a fault did, from its records and the history. Pure. */
export type Judge = (shot: ShotRecords) => FaultShot;

type Params = Record<string, unknown>;

/** A nemesis record's `params` (an empty object when it has none, or is not a record at all). */
export function paramsOf(op: Op | undefined): Params {
  const v = isRecord(op?.value) ? (op.value as Record<string, unknown>) : {};
  return isRecord(v.params) ? (v.params as Params) : {};
}

export function noteOf(op: Op | undefined): string {
  const v = isRecord(op?.value) ? (op.value as Record<string, unknown>) : {};
  return typeof v.note === 'string' ? v.note : '';
}

export function targetsOf(op: Op): string[] {
  const v = isRecord(op.value) ? (op.value as Record<string, unknown>) : {};
  return Array.isArray(v.targets) ? v.targets.map(String) : [];
}

export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export const hitOrMiss = (start: Op, why: string | null, evidence: string): FaultShot => ({
  index: start.index,
  hit: why === null,
  evidence: why ?? evidence,
});

/**
 * A client with a lock process (a lock in another language) is paused only when both are: a lock process that ran on
 * kept its session or lease alive, so the pause tested nothing. Null when it was stopped too, or there is none.
 */
export function lockProcessRanOn(p: Record<string, unknown>): string | null {
  return p.lockStopped === false
    ? `its lock process (pid ${String(p.lockPid)}) was not stopped with it: the lock's own threads kept running`
    : null;
}
