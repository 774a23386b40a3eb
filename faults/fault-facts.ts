import type { Fields } from './evidence-fields.ts';
import type { FaultColumnFacts } from './fault-column.ts';
import type { FaultScenarioFacts } from './fault-scenario.ts';

/**
 * What a fault is, apart from how it is done and judged: the shape of the facts each fault's folder declares in its
 * `facts.ts` (Jepsen's `:perf` map, carried by the fault), and the story steps several faults' stories share. The
 * checkers, the report, the matrix page and `--help` read these facts through the table of faults, catalogue.ts.
 */

/** What kind of thing a fault does: the report tells a paused process's story for the `pause` family. */
export type FaultFamily = 'pause' | 'crash' | 'clock' | 'network';

/**
 * How a fault aimed at the lock says what it struck in its hit's evidence: `{process}` is the holder it caught
 * (`p3`), `{nodes}` the nodes it struck (`redis[0], redis[2]`).
 */
export interface FaultAimFacts {
  readonly struck: string;
}

/**
 * The names of the steps of the stories aimed faults stand for (FaultFacts.story), as the results and the report
 * name them.
 */
export type StoryStepId =
  | 'stopped'
  | 'killed'
  | 'died'
  | 'struck'
  | 'write-held'
  | 'lease-expired'
  | 'other-wrote'
  | 'granted'
  | 'freed'
  | 'resumed'
  | 'restarted'
  | 'delivered'
  | 'holder-wrote'
  | 'both-wrote'
  | 'reply-dropped'
  | 'committed'
  | 'unacknowledged'
  | 'renewal-late'
  | 'lease-early'
  | 'recovered'
  | 'settled'
  | 'request-held'
  | 'replies-held'
  | 'connection-reset'
  | 'reset-seen';

/**
 * One step of the story an aimed fault stands for. A shot is a hit only when its story completed: every step
 * happened, in order — or the lock observably stopped it at a step that says how it may (`held`), which is the
 * lock passing the test rather than the fault failing to set it.
 */
export interface StoryStepFacts {
  readonly id: StoryStepId;
  /** What must have happened, as the report lists it. */
  readonly says: string;
  /**
   * Present when the lock may stop the story here and be seen doing it: what it then did (another client asked
   * for the lock and was kept out; the resource refused the write). The story is complete then: the lock was put
   * to the test and held. Absent: the step must happen, or the shot tested nothing.
   */
  readonly held?: string;
}

/** Another client's section overlapped the holder's: the write it then commits and the holder's cannot both count. */
export const OTHER_WROTE: StoryStepFacts = {
  id: 'other-wrote',
  says: "another client acquired the same account and read it meanwhile, and committed its write (before or after the holder's)",
};
/** The last step of every story where a holder that lost its lock acts on: its write, or being told it lost. */
export const HOLDER_WROTE: StoryStepFacts = {
  id: 'holder-wrote',
  says: 'the holder then wrote',
  held: 'its write was refused (a stale token or version), or it learned it had lost the lock and skipped it',
};

/**
 * Another client taking the lock the holder still believes it holds, and reading the balance before the holder's
 * write lands: both critical sections then run on the same balance. A grant whose read comes after the holder's write
 * sees that write: the sections overlapped, but nothing could be lost. The lock has no way to hold here that the
 * history could tell from a server that was merely down or slow: a remedy that stops the story does so at a step
 * of the fault's own (restart-empty's `restarted`).
 */
export const GRANTED: StoryStepFacts = {
  id: 'granted',
  says: "another client was granted the account's lock and read the balance before the holder's write completed",
};

/** The second writer of a double grant: the other client's write after its read. */
export const BOTH_WROTE: StoryStepFacts = {
  id: 'both-wrote',
  says: 'the other client then wrote too',
  held: 'its write was refused as stale (its token or version)',
};

/** What a fault's story script needs of the run it came from (repro/extract-scenario.ts builds it). */
export interface ScriptContext {
  /** ` on redis[0],redis[1]`: the servers the shot struck, as a step names them; '' when it struck none by name. */
  readonly on: string;
  /** The run renewed its leases (--watchdog). */
  readonly watchdog: boolean;
  /** The run's clock jump in seconds (--clock-offset), when it set one. */
  readonly clockOffsetS?: number;
}

/**
 * How a scenario's script (scenario/scenario-steps.ts) writes a fault aimed at a holder, beyond `<name> A` and
 * `heal <name> A`, and how `repro` scripts its story.
 */
export interface ScriptFacts {
  /** A word a step may strike with instead of the fault's name (`pause A`). */
  readonly verb?: string;
  /** A word that heals it (`resume A`). */
  readonly healVerb?: string;
  /** Its step ends with its heal: its story goes on once what it struck is back (restart-empty's nodes). */
  readonly healsAtOnce?: true;
  /** It may be told which of the nodes holding the key to strike (`on redis[0..2]`). */
  readonly namesServers?: true;
  /** Its strike takes a jump (`<name> +60s A`) and `<name> reset` heals it; the words, for a step that has them wrong. */
  readonly jump?: { readonly usage: string };
  /**
   * What `wait lease-expired A` counts A's lease from when this fault struck A: the strike itself (A was stopped),
   * or A's write entering the fault's hold. Absent: A's grant.
   */
  readonly leaseFrom?: 'strike' | 'held-write';
  /**
   * The client step whose reply it drops (`acquire`): that step of the struck client ending without a grant is its
   * story going as scripted (committed but unacknowledged), not the script diverging.
   */
  readonly dropsReplyTo?: 'acquire';
  /**
   * Its step names the request it aims at by its command after the client (`hold-request A SET`): the word is
   * required; `usage` says so to a step without it.
   */
  readonly request?: { readonly usage: string };
  /** The steps of its story with A the holder and B the other client (the shipped scenarios' scripts). */
  readonly story?: (run: ScriptContext) => readonly string[];
}

export interface FaultFacts {
  /** One line for `--help`. */
  readonly help: string;
  /** Other names `--nemesis` takes for it (the history and the report name it by its own). */
  readonly aliases?: readonly string[];
  readonly family: FaultFamily;
  /**
   * For a fault not aimed at the lock: what it did to its targets, as the live log says it (`{targets}` filled in);
   * absent: "acted on {targets}". An aimed fault says it with its aim's `struck`.
   */
  readonly did?: string;
  /**
   * What a holder it broke was, in the "what to do" line's words ("stops a holder <this> from writing"): paused past
   * its lease, slowed past it by its own clock. Absent: a holder that lost its lock without knowing (report/next-step.ts).
   */
  readonly holderWas?: string;
  /** Its target is the holder's own process: liveness measures how long the lock stayed the holder's (its lockout). */
  readonly locksOut?: true;
  /**
   * It loses or holds a reply after the server acted, or resets the client's connections (issue 46): a client kept
   * waiting under it is what checkers/lost-replies/ names; a wait under any other fault may be that fault's own.
   */
  readonly losesReplies?: true;
  /** How a scenario scripts it, for a fault aimed at a holder (script.ts beside its facts). */
  readonly script?: ScriptFacts;
  /**
   * Non-null when the fault aims at the lock: it strikes while a holder is inside its critical section and records
   * where (the `aim` of its start record, nemesis/fault-aim.ts), and a shot is a hit when the history confirms it
   * (checkers/fault-hits.ts). Null for a fault that acts on whatever it finds; its shot is judged by its own judge
   * there, or else by its `end` record's `hit: true` (and `note`).
   */
  readonly aim: FaultAimFacts | null;
  /** What a hit is: what the fault must have done at least once, as "pause-holder fired 3 times but never <hit>". */
  readonly hit: string;
  /**
   * For a fault aimed at the lock: the story it stands for, step by step, each observable in the history and the
   * fault's own records (faults/judging/story.ts judges them). A shot is a hit only when its story completed.
   * Null for a fault that acts on whatever it finds: its own evidence decides.
   */
  readonly story: readonly StoryStepFacts[] | null;
  /** What a story step cannot show for some locks, said rather than guessed (the report prints it with the story). */
  readonly storyLimits?: string;
  /** Whether it moves wall clocks: the run's processes get the LD_PRELOAD clock shim and the report draws offsets. */
  readonly movesClocks: boolean;
  /**
   * It runs a clock at `--clock-rate` (not a jump): a run of it says whether that rate is beyond its lock's stated
   * clock assumption (locks/clock-assumption.ts).
   */
  readonly atClockRate?: true;
  /**
   * Whether the servers keep every lease through it: it acts only on the lock's clients or the wire to them (the
   * holder paused, killed or its session ended, its packets delayed or cut), or pauses a server, whose keys expire on
   * its own wall clock, which a pause does not move. A server that keeps its own lease cannot grant inside it, so
   * such a fault cannot break a lease's promise (matrix/promise-expectation.ts).
   */
  readonly keepsServerLeases: boolean;
  /**
   * One of the faults every lock must survive to be called safe: what a strategy that declares no `defaultFaults`
   * runs (workloads/resolved-strategy.ts).
   */
  readonly everyLockMustSurvive?: true;
  /** The columns of the matrix's fault table that run it (fault-column.ts); absent for a fault no column runs. */
  readonly columns?: readonly FaultColumnFacts[];
  /** The scenarios of the matrix's remedy table that run it (fault-scenario.ts); absent for a fault none runs. */
  readonly scenarios?: readonly FaultScenarioFacts[];
  /** Its colour on the report's timeline (`#rrggbb`). */
  readonly colour: string;
  /**
   * What its `start` record's params hold (what its executor's `start` puts in the injection, nemesis/fault.ts) and
   * what its `end` record's hold (what its `heal` returns), each key with its reader (evidence-fields.ts): the
   * executor is typed by it and the judge reads through it. A fault whose heal returns no params declares `end: {}`.
   */
  readonly evidence: { readonly start: Fields; readonly end: Fields };
}

/** The colour of a fault this fencepost does not know (a history from a newer one). */
export const UNKNOWN_FAULT_COLOUR = '#6b7280';
