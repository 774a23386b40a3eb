import type { FaultAim } from './fault-aim.ts';
import type { FaultName } from './fault-names.ts';

/**
 * What each fault records as its evidence: the `params` of its `start` record (what the executor's `start` puts in
 * the injection, nemesis/fault.ts) and of its `end` record (what its `heal` returns). The executors are typed by
 * these (a key renamed in an executor does not compile), and the judges read them back through the one decoder,
 * faults/evidence.ts, which knows what older runs lacked. The JSON keys are the history's format:
 * renaming one here breaks every stored run.
 */

/** A lock process's tree (a lock in another language) as a pause found it: how it was held, all, still running. */
export type LockTreeRecord = { by: string; pids: number[]; running: number[] };

/** A pause's evidence about the client's lock process, when the client has one (nemesis/client-target.ts). */
export type LockStopRecord = { lockPid?: number; lockStopped?: boolean; lockTree?: LockTreeRecord };

/** What a target's adapter said about its last injection (target/remote-node.ts): the server's own answer. */
export type AdapterRecord = {
  acted?: boolean;
  answered?: boolean;
  command?: string;
  stoppedAnsweringWithinMs?: number;
  node?: string;
};

/** One round of leader-churn: the leader it stopped, who led once it was (null: nobody within the round). */
export type ChurnRound = {
  stopped: string;
  next: string | null;
  stoppedMs: number;
  /** The round was cut short by the heal (the run's end or the hold's), not ended by an election. */
  cut?: true;
};

/** One side of a server↔server partition: its members and the clients connected to them. */
export type PartitionSide = { members: string[]; clients: string[] };

/** Where an aimed fault struck a client's critical section, and that section. */
type Section = { slot: number; account: number; readIndex: number };

export type PauseHolderStart = LockStopRecord &
  Section & {
    maxMs: number;
    ttlMs: number;
    /** With --watchdog: how many ms before its next renewal the holder's write was due (null: not known). */
    writeLeadMs?: number | null;
    renewsInsideSection?: true;
    thinkArmed: boolean;
    aim: FaultAim;
  };
export type KillHolderStart = Section & { ttlMs: number; signal: 'SIGKILL'; aim: FaultAim };
export type KillSessionStart = Section & { backends: number[]; ended: boolean; aim: FaultAim };
export type PauseClientStart = LockStopRecord & { durationMs: number; slot: number; pid: number; stopped: boolean };
export type PauseNodeStart = {
  durationMs: number;
  pids: number[];
  stopped: boolean;
  leader: boolean;
  evidenceFrom?: string;
  adapter?: AdapterRecord | null;
};
export type RestartEmptyStart = {
  keys: string[];
  holder: string;
  holding: string[];
  masters: number;
  killed: string[];
  restartDelayMs: number;
  ttlMs: number;
  persistence: string;
  evidenceFrom?: string;
  adapter?: AdapterRecord[];
  unreachable?: boolean;
  wiped?: boolean;
  aim: FaultAim;
};
export type RestartEmptyEnd = {
  restartedInMs: number;
  /** On a target: whether the servers answered without the holder's key after the restart. */
  wiped?: boolean;
  keysAfterRestart?: Record<string, string[]>;
  downtimeWaitedOutMs?: number;
  interrupted?: true;
};
export type KillStart = { downMs: number; leader: boolean; withData: true };
export type KillEnd = { restartedInMs: number; rejoined: boolean };
export type LeaderChurnStart = { durationMs: number; pids: number[]; roundMaxMs: number };
export type LeaderChurnEnd = { rounds: ChurnRound[]; leaderChanges: number };
export type ClockStart = {
  offsetMs: number;
  offsets: Record<string, number>;
  maxMs: number;
  keys?: string[];
  holder?: string;
  holding?: string[];
  aim: FaultAim;
};
export type ClockEnd = { offsets: Record<string, number> };
export type ClockStrobeStart = {
  offsetMs: number;
  periodMs: number;
  startsHigh: true;
  durationMs: number;
  /** The lock servers whose clocks the shim does move. */
  moved: string[];
  offsets: Record<string, number>;
};
export type FailoverStart = {
  account: number;
  holder: string;
  replicationCutMs: number;
  keyOnPromoted: boolean;
  restartDelayMs: number;
  aim: FaultAim;
};
export type PartitionStart = { durationMs: number; proxies: string[] };
export type LatencyStart = PartitionStart & { oneWayMs: number };
/** What a proxy fault held or delayed, per proxy. */
export type ProxyBytesEnd = { heldBytes: Record<string, number> };
export type DelayWriteStart = Section & {
  maxMs: number;
  /** When the hold began, on the history's clock. */
  heldAtTime: number;
  ttlMs: number;
  process: number;
};
export type DelayWriteEnd = {
  hit: boolean;
  process: number;
  account: number;
  heldMs: number;
  heldBytes: Record<string, number>;
  cutShort?: true;
  writeTime?: number;
  writeIndex?: number;
  writeHeldMs?: number;
};
export type ServerPartitionStart = {
  grudge: string;
  durationMs: number;
  ttlMs: number;
  leader: string | null;
  sides: PartitionSide[];
  cuts: string[];
  viewsBefore: Record<string, string>;
};
export type ServerPartitionEnd = {
  heldBytes: Record<string, number>;
  heldPackets: number;
  totalHeldBytes: number;
  viewsDuring: Record<string, string>;
};

/** A fault whose `heal` returns no params: its end record holds only what the nemesis adds (HoldRecord). */
type NoEnd = Record<never, never>;

/** Per fault of the catalogue, its start and end params. A catalogue fault missing here does not compile. */
export interface FaultEvidenceMap {
  'pause-holder': { start: PauseHolderStart; end: NoEnd };
  'kill-holder': { start: KillHolderStart; end: NoEnd };
  'kill-session': { start: KillSessionStart; end: NoEnd };
  'pause-client': { start: PauseClientStart; end: NoEnd };
  'pause-node': { start: PauseNodeStart; end: NoEnd };
  'restart-empty': { start: RestartEmptyStart; end: RestartEmptyEnd };
  kill: { start: KillStart; end: KillEnd };
  'leader-churn': { start: LeaderChurnStart; end: LeaderChurnEnd };
  clock: { start: ClockStart; end: ClockEnd };
  'clock-strobe': { start: ClockStrobeStart; end: ClockEnd };
  failover: { start: FailoverStart; end: NoEnd };
  partition: { start: PartitionStart; end: ProxyBytesEnd };
  latency: { start: LatencyStart; end: ProxyBytesEnd };
  'delay-write': { start: DelayWriteStart; end: DelayWriteEnd };
  'isolate-leader': { start: ServerPartitionStart; end: ServerPartitionEnd };
  'majority-minority': { start: ServerPartitionStart; end: ServerPartitionEnd };
  bridge: { start: ServerPartitionStart; end: ServerPartitionEnd };
  'majorities-ring': { start: ServerPartitionStart; end: ServerPartitionEnd };
}

/** Every catalogue fault has its row above, and nothing else does (a compile error names the one that differs). */
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const EVIDENCE_COVERS_THE_CATALOGUE: Exactly<keyof FaultEvidenceMap, FaultName> = true;

/** What fault `F`'s executor puts in its injection's `params` (its `start` record). */
export type StartParams<F extends FaultName = FaultName> = FaultEvidenceMap[F]['start'];
/** What fault `F`'s `heal` returns as `params` (before the nemesis adds its HoldRecord). */
export type EndParams<F extends FaultName = FaultName> = FaultEvidenceMap[F]['end'];

/** What the nemesis adds to every end record: how long the fault held, and what ended the hold. */
export type HoldRecord = {
  heldMs: number;
  /** For a fault that waits for its story: `story` (the step it waits for was taken) or what else ended it. */
  endedBy?: string;
  /** The run's end cut the hold short. */
  cutShort?: true;
};

/** The params of fault `F`'s end record, as the history holds them. */
export type RecordedEnd<F extends FaultName = FaultName> = EndParams<F> & HoldRecord;

/** Each key any fault records, typed as the faults that record it write it (a union where they differ). */
type Merged<U> = {
  [K in U extends unknown ? keyof U : never]?: U extends unknown ? (K extends keyof U ? U[K] : never) : never;
};

/**
 * The params of a nemesis record of any fault (history/bank.ts `NemesisValue`): a record's `f` is not tied to its
 * value by the type, so this is every fault's keys at once, each with its own type. Read one fault's through
 * `evidenceOf` (faults/evidence.ts).
 */
export type FaultParams = Merged<StartParams | RecordedEnd>;
