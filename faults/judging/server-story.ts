import { aimOf, type AimedFaultName } from '../evidence.ts';
import type { AimedShot } from './aimed-shot.ts';
import type { Judge, ShotRecords } from './fault-shot.ts';
import { holderWrite, holderWrote, type StepFinding } from './story-steps.ts';
import { granted, struck, tell, type Second } from './story.ts';

/** The aimed faults that strike the lock's servers: their stories share the steps after the strike. */
export type ServerStoryFault = AimedFaultName;

/**
 * restart-empty, clock, failover and kill-session: struck the servers (and what else the fault's own record must
 * show: `also`) → (restart-empty: restarted) → another client granted the lock and read → the holder wrote → the
 * other client wrote too.
 */
export function serverStory<F extends ServerStoryFault>(
  f: F,
  also: (shot: ShotRecords<F>) => string | null,
  restartedStep?: (shot: ShotRecords<F>, a: AimedShot) => StepFinding,
): Judge<F> {
  return (shot) => {
    let a!: AimedShot;
    let second!: Second;
    return tell(shot.start, f, {
      struck: struck(
        shot,
        aimOf(shot.start),
        (x) => (a = x),
        () => also(shot),
      ),
      ...(restartedStep ? { restarted: () => restartedStep(shot, a) } : {}),
      granted: () => granted(shot, a, (s) => (second = s)),
      'holder-wrote': () => holderWrote(holderWrite(shot.history, a.own, a.read), a.who, second.read.time),
      'both-wrote': () => holderWrote(holderWrite(shot.history, second.own, second.read), second.who, second.read.time),
    });
  };
}
