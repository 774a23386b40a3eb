import { aimOf, type AimedFaultName } from '../evidence.ts';
import type { FaultAim } from '../fault-aim.ts';
import type { AimedShot } from './aimed-shot.ts';
import type { Judge, ShotRecords } from './fault-shot.ts';
import { holderWrite, holderWrote, type StepFinding } from './story-steps.ts';
import { granted, struck, tell, type Second } from './story.ts';

/** The aimed faults that strike the lock's servers: their stories share the steps after the strike. */
export type ServerStoryFault = AimedFaultName;

/**
 * A story of a fault's own beside the usual one (restart-empty's scripted minority: faults/restart-empty/minority.ts):
 * the aim its struck step confirms and the words it adds, and what its `granted` step finds when no other client was
 * granted. Null from `of`: the usual story.
 */
export interface StoryVariant<F extends ServerStoryFault> {
  of(shot: ShotRecords<F>): { aim: FaultAim; more: string } | null;
  notGranted(shot: ShotRecords<F>, a: AimedShot): StepFinding;
}

/** A step of a fault's own between the strike and the grant: restart-empty's `restarted`, clock-rate's `lease-expired`. */
export type OwnSteps<F extends ServerStoryFault> = Partial<
  Record<'restarted' | 'lease-expired', (shot: ShotRecords<F>, a: AimedShot) => StepFinding>
>;

/**
 * restart-empty, clock, clock-rate, failover and kill-session: struck the servers (and what else the fault's own
 * record must show: `also`) → (restart-empty: restarted; clock-rate: the lease expired at the rate) → another client
 * granted the lock and read → the holder wrote → the other client wrote too.
 */
export function serverStory<F extends ServerStoryFault>(
  f: F,
  also: (shot: ShotRecords<F>) => string | null,
  steps: OwnSteps<F> = {},
  variant?: StoryVariant<F>,
): Judge<F> {
  return (shot) => {
    let a!: AimedShot;
    let second!: Second;
    const own = variant?.of(shot) ?? null;
    return tell(shot.start, f, {
      struck: struck(
        shot,
        own?.aim ?? aimOf(shot.start),
        (x) => (a = x),
        () => also(shot),
        own?.more,
      ),
      ...Object.fromEntries(Object.entries(steps).map(([id, step]) => [id, () => step(shot, a)])),
      granted: () => {
        const g = granted(shot, a, (s) => (second = s));
        return own && g.status === 'missing' ? variant!.notGranted(shot, a) : g;
      },
      'holder-wrote': () => holderWrote(holderWrite(shot.history, a.own, a.read), a.who, second.read.time),
      'both-wrote': () => holderWrote(holderWrite(shot.history, second.own, second.read), second.who, second.read.time),
    });
  };
}
