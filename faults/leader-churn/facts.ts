import { isRecord } from '../../common/is-record.ts';
import { num, numbers, type Reader } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';

/** One round of leader-churn: the leader it stopped, who led once it was (null: nobody within the round). */
export type ChurnRound = {
  stopped: string;
  next: string | null;
  stoppedMs: number;
  /** The round was cut short by the heal (the run's end or the hold's), not ended by an election. */
  cut?: true;
};

const rounds: Reader<ChurnRound[]> = (v) =>
  Array.isArray(v)
    ? v.map((r) => {
        const x = isRecord(r) ? r : {};
        return {
          stopped: String(x.stopped),
          next: typeof x.next === 'string' ? x.next : null,
          stoppedMs: x.stoppedMs as number,
          ...(x.cut === true ? { cut: true as const } : {}),
        };
      })
    : undefined;

/** leader-churn: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'for --pause ms, SIGSTOP the etcd or ZooKeeper leader until another member leads, SIGCONT it, and again with the new leader: elections one after another',
  family: 'pause',
  did: 'stopping each leader in turn until another leads, starting with {targets}',
  aim: null,
  hit: 'saw another member take over from a stopped leader',
  story: null,
  movesClocks: false,
  keepsServerLeases: false,
  colour: '#1e3a8a',
  evidence: {
    start: { durationMs: num, pids: numbers, roundMaxMs: num },
    end: { rounds, leaderChanges: num },
  },
} as const satisfies FaultFacts;
