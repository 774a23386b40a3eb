import { deriveSeed, seededRandom } from '../common/random.ts';
import { seededShuffle } from '../common/seeded-shuffle.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { runNeeds } from './fault-registry.ts';

/** One step of the schedule: wait `delayMs`, then inject `fault`, making its own choices from `seed`. */
export interface ScheduledFault {
  /** 0-based position in the schedule. */
  step: number;
  fault: FaultName;
  /** Quiet time before this fault starts: after the previous fault ended (or after the clients started). */
  delayMs: number;
  /**
   * Seed for the fault's own random choices (which client, which node, which subset). One per step, drawn
   * from the schedule's stream, so a step's choices don't depend on how many numbers earlier faults used.
   */
  seed: number;
}

export interface ScheduleOptions {
  /** --nemesis-interval: quiet time between the end of one fault and the start of the next. */
  intervalMs: number;
  /**
   * Quiet time before the first fault. Short on purpose: a 10 s test must see its fault hit at least once, and
   * the clients are busy within a few hundred ms of starting.
   */
  firstDelayMs: number;
}

/** Quiet time before the first fault: clients are looping after ~0.5 s; never later than the interval. */
export function firstDelayFor(intervalMs: number): number {
  return Math.min(intervalMs, 1000);
}

/**
 * The shortest --time-limit (s) in which `faults` can show anything: the longest minimum run a fault declares
 * (fault-needs.ts; a pause fault starts after the first delay and keeps its target stopped for `pauseMs`; what it
 * breaks happens after that). 0 when no fault needs more than any run has.
 */
export function shortestUsefulRunS(
  faults: readonly FaultName[],
  opts: { intervalMs: number; pauseMs: number },
): number {
  const ms = runNeeds(faults).minRunMs({ firstDelayMs: firstDelayFor(opts.intervalMs), pauseMs: opts.pauseMs });
  return Math.ceil(ms / 1000);
}

/**
 * The fault schedule, as pure data from the seed: an endless sequence in rounds, each round every fault once in
 * a seeded order, so every requested fault is exercised within `faults.length` steps (a purely random pick could
 * starve one for a whole short run). Same faults + seed + options → same sequence.
 */
export function* faultSchedule(
  faults: readonly FaultName[],
  seed: number,
  opts: ScheduleOptions,
): Generator<ScheduledFault, void, void> {
  if (faults.length === 0) return;
  const random = seededRandom(deriveSeed(seed, { purpose: 'fault-schedule' }));
  for (let step = 0; ; ) {
    for (const fault of seededShuffle(random, faults)) {
      yield {
        step,
        fault,
        delayMs: step === 0 ? opts.firstDelayMs : opts.intervalMs,
        seed: Math.floor(random() * 2 ** 31),
      };
      step++;
    }
  }
}
