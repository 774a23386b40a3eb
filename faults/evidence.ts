import { isRecord } from '../common/is-record.ts';
import type { Op } from '../history/op.ts';
import { FAULT_CATALOGUE, type FaultName } from './catalogue.ts';
import { decode, num, readAim, str, strings, type Decoded, type Params } from './evidence-fields.ts';
import type { FaultAim } from './fault-aim.ts';
import { holdFields, type HoldRecord } from './evidence-parts.ts';

/**
 * The one reader of a nemesis record's params: each fault's `facts.ts` declares its evidence (each key with its
 * reader, evidence-fields.ts), and every judge reads a fault's evidence through `evidenceOf`, never the record itself.
 *
 * What older runs lack, and what it becomes here (the judges then read a missing key as "not recorded"):
 * - `aim` (aimed faults) — runs from before fencepost recorded where faults landed: absent.
 * - `aim.readTime` / `aim.atTime` — runs from before the history was put in time order after the run: absent, and the
 *   aim's `readIndex` / `atIndex` (journal positions, then also the history's) locate the read and the strike.
 * - `heldBytes` in a proxy fault's end record — runs from before the proxies counted them: absent.
 * - `lockTree` of a pause — runs from before trees were recorded (only `lockPid`, `lockStopped`): absent.
 * - a clock shot on etcd members — runs from before clock was refused for etcd: its judge says why nothing moved
 *   (faults/clock/judge.ts).
 */

type EvidenceOf<F extends FaultName> = (typeof FAULT_CATALOGUE)[F]['evidence'];

/** What fault `F`'s executor puts in its injection's `params` (its `start` record). */
export type StartParams<F extends FaultName = FaultName> = Params<EvidenceOf<F>['start']>;
/** What fault `F`'s `heal` returns as `params` (before the nemesis adds its HoldRecord). */
export type EndParams<F extends FaultName = FaultName> = Params<EvidenceOf<F>['end']>;

/** The faults aimed at the lock: those whose start record carries an `aim`. */
export type AimedFaultName = { [F in FaultName]: 'aim' extends keyof StartParams<F> ? F : never }[FaultName];

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
}

/** Fault `f`'s evidence from its `start` record and the `end` record that closed it (undefined: none did). */
export function evidenceOf<F extends FaultName>(f: F, start: Op, end: Op | undefined): Evidence<F> {
  const fields = FAULT_CATALOGUE[f].evidence;
  return {
    targets: strings(valueOf(start).targets) ?? [],
    start: decode(fields.start, valueOf(start).params) as Decoded<StartParams<F>>,
    startNote: noteOf(start),
    end: end
      ? ({ ...decode(fields.end, valueOf(end).params), ...decode(holdFields, valueOf(end).params) } as Decoded<
          EndParams<F>
        > &
          Decoded<HoldRecord>)
      : null,
    endNote: noteOf(end),
  };
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
