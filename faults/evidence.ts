import { isRecord } from '../common/is-record.ts';
import type { FaultAim } from './fault-aim.ts';
import { shimCannotMove } from './catalogue.ts';
import type {
  AdapterRecord,
  ChurnRound,
  EndParams,
  HoldRecord,
  LockTreeRecord,
  PartitionSide,
  StartParams,
} from './evidence-types.ts';
import type { FaultName } from './fault-names.ts';
import type { Op } from '../history/op.ts';

/**
 * The one reader of a nemesis record's params (faults/evidence-types.ts types them): each key read as its type,
 * or left out when the record lacks it or holds something else there. Every judge (checkers/fault-hits/) reads a
 * fault's evidence through `evidenceOf`, never the record itself.
 *
 * What older runs lack, and what it becomes here (the judges then read a missing key as "not recorded"):
 * - `aim` (aimed faults) — runs from before fencepost recorded where faults landed: absent.
 * - `aim.readTime` / `aim.atTime` — runs from before the history was put in time order after the run: absent, and the
 *   aim's `readIndex` / `atIndex` (journal positions, then also the history's) locate the read and the strike.
 * - `heldBytes` in a proxy fault's end record — runs from before the proxies counted them: absent.
 * - `lockTree` of a pause — runs from before trees were recorded (only `lockPid`, `lockStopped`): absent.
 * - a clock shot on etcd members — runs from before clock was refused for etcd: `unmovable` says why nothing moved.
 */

/** Why a record lacks a key that today's runs always record: the run that wrote it predates the key. */
export const WHY_ABSENT = {
  aim: 'a run from before fencepost recorded where faults landed',
  heldBytes: 'a run from before the proxies counted them',
} as const;

/** A finite number, or undefined: the one such reader of recorded params. */
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Every key of T, each read as present or absent (undefined). */
export type Decoded<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

type Reader<T> = (v: unknown) => T | undefined;
type Fields<T> = { [K in keyof T]-?: Reader<Exclude<T[K], undefined>> };

const str: Reader<string> = (v) => (typeof v === 'string' ? v : undefined);
const bool: Reader<boolean> = (v) => (typeof v === 'boolean' ? v : undefined);
const yes: Reader<true> = (v) => (v === true ? true : undefined);
const sigkill: Reader<'SIGKILL'> = (v) => (v === 'SIGKILL' ? v : undefined);
const strings: Reader<string[]> = (v) => (Array.isArray(v) ? v.map(String) : undefined);
const numbers: Reader<number[]> = (v) => (Array.isArray(v) ? (v as number[]) : undefined);
const orNull =
  <T>(read: Reader<T>): Reader<T | null> =>
  (v) =>
    v === null ? null : read(v);
const recordOf =
  <T>(read: (x: unknown) => T): Reader<Record<string, T>> =>
  (v) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, read(x)])) : undefined;
const numberRecord = recordOf((x) => num(x) ?? 0);
const stringRecord = recordOf(String);
const stringsRecord = recordOf((x) => (Array.isArray(x) ? x.map(String) : []));

const adapter: Reader<AdapterRecord> = (v) =>
  isRecord(v)
    ? decode<AdapterRecord>(
        {
          acted: bool,
          answered: bool,
          command: (c) => (c === undefined || c === null ? undefined : String(c)),
          stoppedAnsweringWithinMs: num,
          node: str,
        },
        v,
      )
    : undefined;

/** An aim, when its locating numbers are all there (see FaultAim). */
export function readAim(v: unknown): FaultAim | undefined {
  if (!isRecord(v)) return undefined;
  const { process, account, readIndex, atIndex } = v;
  if (![process, account, readIndex, atIndex].every((n) => typeof n === 'number' && Number.isInteger(n)))
    return undefined;
  return v as unknown as FaultAim;
}

const lockTree: Reader<LockTreeRecord> = (t) =>
  isRecord(t) && Array.isArray(t.pids) && Array.isArray(t.running)
    ? { by: String(t.by), pids: t.pids as number[], running: t.running as number[] }
    : undefined;

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

const sides: Reader<PartitionSide[]> = (v) =>
  Array.isArray(v)
    ? v.map((side) => {
        const x = isRecord(side) ? side : {};
        return { members: strings(x.members) ?? [], clients: strings(x.clients) ?? [] };
      })
    : undefined;

const section = { slot: num, account: num, readIndex: num };
const lockStop = { lockPid: num, lockStopped: bool, lockTree };
const serverPartition = {
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
const proxyBytes = { heldBytes: numberRecord };

/** How to read each fault's params: every key of its types (faults/evidence-types.ts) with its reader. */
const FIELDS: { [F in FaultName]: { start: Fields<StartParams<F>>; end: Fields<EndParams<F>> } } = {
  'pause-holder': {
    start: {
      ...section,
      ...lockStop,
      maxMs: num,
      ttlMs: num,
      writeLeadMs: orNull(num),
      renewsInsideSection: yes,
      thinkArmed: bool,
      aim: readAim,
    },
    end: {},
  },
  'kill-holder': { start: { ...section, ttlMs: num, signal: sigkill, aim: readAim }, end: {} },
  'kill-session': { start: { ...section, backends: numbers, ended: bool, aim: readAim }, end: {} },
  'pause-client': { start: { ...lockStop, durationMs: num, slot: num, pid: num, stopped: bool }, end: {} },
  'pause-node': {
    start: { durationMs: num, pids: numbers, stopped: bool, leader: bool, evidenceFrom: str, adapter: orNull(adapter) },
    end: {},
  },
  'restart-empty': {
    start: {
      keys: strings,
      holder: str,
      holding: strings,
      masters: num,
      killed: strings,
      restartDelayMs: num,
      ttlMs: num,
      persistence: str,
      evidenceFrom: str,
      adapter: (v) => (Array.isArray(v) ? v.map((x) => adapter(x) ?? {}) : undefined),
      unreachable: bool,
      wiped: bool,
      aim: readAim,
    },
    end: {
      restartedInMs: num,
      wiped: bool,
      keysAfterRestart: stringsRecord,
      downtimeWaitedOutMs: num,
      interrupted: yes,
    },
  },
  kill: { start: { downMs: num, leader: bool, withData: yes }, end: { restartedInMs: num, rejoined: bool } },
  'leader-churn': {
    start: { durationMs: num, pids: numbers, roundMaxMs: num },
    end: { rounds, leaderChanges: num },
  },
  clock: {
    start: {
      offsetMs: num,
      offsets: numberRecord,
      maxMs: num,
      keys: strings,
      holder: str,
      holding: strings,
      aim: readAim,
    },
    end: { offsets: numberRecord },
  },
  'clock-strobe': {
    start: {
      offsetMs: num,
      periodMs: num,
      startsHigh: yes,
      durationMs: num,
      moved: strings,
      offsets: numberRecord,
    },
    end: { offsets: numberRecord },
  },
  failover: {
    start: {
      account: num,
      holder: str,
      replicationCutMs: num,
      keyOnPromoted: bool,
      restartDelayMs: num,
      aim: readAim,
    },
    end: {},
  },
  partition: { start: { durationMs: num, proxies: strings }, end: proxyBytes },
  latency: { start: { durationMs: num, proxies: strings, oneWayMs: num }, end: proxyBytes },
  'delay-write': {
    start: { ...section, maxMs: num, heldAtTime: num, ttlMs: num, process: num },
    end: {
      hit: bool,
      process: num,
      account: num,
      heldMs: num,
      heldBytes: numberRecord,
      cutShort: yes,
      writeTime: num,
      writeIndex: num,
      writeHeldMs: num,
    },
  },
  'isolate-leader': serverPartition,
  'majority-minority': serverPartition,
  bridge: serverPartition,
  'majorities-ring': serverPartition,
};

const HOLD: Fields<HoldRecord> = { heldMs: num, endedBy: str, cutShort: yes };

function decode<T>(fields: Fields<T>, raw: unknown): Decoded<T> {
  const params = isRecord(raw) ? raw : {};
  const out: Record<string, unknown> = {};
  for (const [k, read] of Object.entries(fields) as [string, Reader<unknown>][]) {
    const v = read(params[k]);
    if (v !== undefined) out[k] = v;
  }
  return out as Decoded<T>;
}

/** The value of a nemesis record, as far as it is one. */
const valueOf = (op: Op | undefined): Record<string, unknown> => (isRecord(op?.value) ? op.value : {});

/** A record's own note ('' when it has none). */
const noteOf = (op: Op | undefined): string => str(valueOf(op).note) ?? '';

/** A nemesis record's phase (undefined: not a nemesis record's value) and note. */
export const headerOf = (op: Op): { phase: 'start' | 'end' | undefined; note: string } => {
  const phase = valueOf(op).phase;
  return { phase: phase === 'start' || phase === 'end' ? phase : undefined, note: noteOf(op) };
};

/** One shot of fault `F` as its records hold it: the start record's targets, params and note, and its end's. */
export interface Evidence<F extends FaultName> {
  targets: string[];
  start: Decoded<StartParams<F>>;
  /** What its start said (a fault that knew it had no effect says so here). */
  startNote: string;
  /** Its end record's params; null when the history ended before the fault was healed. */
  end: (Decoded<EndParams<F>> & Decoded<HoldRecord>) | null;
  endNote: string;
  /** A clock jump that could move no clock of the servers it struck (etcd members, see above), and why; else null. */
  unmovable: string | null;
}

/** Fault `f`'s evidence from its `start` record and the `end` record that closed it (undefined: none did). */
export function evidenceOf<F extends FaultName>(f: F, start: Op, end: Op | undefined): Evidence<F> {
  const fields = FIELDS[f] as { start: Fields<StartParams<F>>; end: Fields<EndParams<F>> };
  const s = decode(fields.start, valueOf(start).params);
  return {
    targets: strings(valueOf(start).targets) ?? [],
    start: s,
    startNote: noteOf(start),
    end: end ? { ...decode(fields.end, valueOf(end).params), ...decode(HOLD, valueOf(end).params) } : null,
    endNote: noteOf(end),
    unmovable: f === 'clock' ? unmovableClocks((s as Decoded<StartParams<'clock'>>).aim?.struck) : null,
  };
}

function unmovableClocks(struck: readonly string[] | undefined): string | null {
  const nodes = struck ?? [];
  return nodes.length && nodes.every((n) => /^etcd\[\d+\]$/.test(n))
    ? `it struck ${nodes.join(', ')}: ${shimCannotMove('etcd')}`
    : null;
}

/** The aim a nemesis record carries (any fault's), or undefined. */
export const aimOf = (op: Op): FaultAim | undefined =>
  readAim((valueOf(op).params as { aim?: unknown } | undefined)?.aim);

/**
 * The client process a fault acted on: its aim's (an aimed fault), else its params' `process` (delay-write), else
 * undefined.
 */
export function processOf(op: Op): number | undefined {
  const params = valueOf(op).params;
  return aimOf(op)?.process ?? num(isRecord(params) ? params.process : undefined);
}
