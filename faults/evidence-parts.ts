import { isRecord } from '../common/is-record.ts';
import {
  bool,
  decode,
  num,
  opt,
  orNull,
  str,
  strings,
  numberRecord,
  stringRecord,
  type Params,
  type Reader,
} from './evidence-fields.ts';

/**
 * Pieces of evidence more than one fault records, declared once like a fault's own (evidence-fields.ts): each
 * fault's `facts.ts` spreads the ones it writes into its `start` or `end` declaration.
 */

/** A lock process's tree (a lock in another language) as a pause found it: how it was held, all, still running. */
export type LockTreeRecord = { by: string; pids: number[]; running: number[] };
const lockTree: Reader<LockTreeRecord> = (t) =>
  isRecord(t) && Array.isArray(t.pids) && Array.isArray(t.running)
    ? { by: String(t.by), pids: t.pids as number[], running: t.running as number[] }
    : undefined;

/** A pause's evidence about the client's lock process, when the client has one (nemesis/client-target.ts). */
export const lockStop = { lockPid: opt(num), lockStopped: opt(bool), lockTree: opt(lockTree) };
export type LockStopRecord = Params<typeof lockStop>;

/** What a target's adapter said about its last injection (target/remote-node.ts): the server's own answer. */
const adapterFields = {
  acted: opt(bool),
  answered: opt(bool),
  command: opt((c: unknown) => (c === undefined || c === null ? undefined : String(c))),
  stoppedAnsweringWithinMs: opt(num),
  node: opt(str),
};
export type AdapterRecord = Params<typeof adapterFields>;
export const adapter: Reader<AdapterRecord> = (v) => (isRecord(v) ? decode(adapterFields, v) : undefined);

/** Where an aimed fault struck a client's critical section, and that section. */
export const section = { slot: num, account: num, readIndex: num };

/** One side of a server↔server partition: its members and the clients connected to them. */
export type PartitionSide = { members: string[]; clients: string[] };
const sides: Reader<PartitionSide[]> = (v) =>
  Array.isArray(v)
    ? v.map((side) => {
        const x = isRecord(side) ? side : {};
        return { members: strings(x.members) ?? [], clients: strings(x.clients) ?? [] };
      })
    : undefined;

/**
 * A server↔server partition's records (isolate-leader, majority-minority, bridge, majorities-ring: one executor,
 * nemesis/server-partition/partition-fault.ts, with Jepsen's grudges).
 */
export const serverPartitionEvidence = {
  start: {
    grudge: str,
    durationMs: num,
    ttlMs: num,
    leader: orNull(str),
    sides,
    cuts: strings,
    viewsBefore: stringRecord,
  },
  end: { heldBytes: numberRecord, heldPackets: num, totalHeldBytes: num, viewsDuring: stringRecord },
};

export type ServerPartitionStart = Params<typeof serverPartitionEvidence.start>;
export type ServerPartitionEnd = Params<typeof serverPartitionEvidence.end>;

/** What a proxy fault (partition, latency) held or delayed, per proxy. */
export const proxyBytes = { heldBytes: numberRecord };

/** What the nemesis adds to every end record: how long the fault held, and what ended the hold. */
export const holdFields = {
  heldMs: num,
  /** For a fault that waits for its story: `story` (the step it waits for was taken) or what else ended it. */
  endedBy: opt(str),
  /** The run's end cut the hold short. */
  cutShort: opt((v: unknown) => (v === true ? (true as const) : undefined)),
};
export type HoldRecord = Params<typeof holdFields>;
