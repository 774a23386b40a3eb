import { faultFacts } from '../faults/catalogue.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { GateOutcome } from './step-gate.ts';

/**
 * A client step whose reply a fault in effect drops on purpose (its script's `dropsReplyTo`: reply-loss-acquire on
 * `A acquire`): the step ending without a grant is the story the script wrote — the server acted, the client never
 * heard — not the run failing to follow it. Pure.
 */

/** The fault in effect on `client` (`open`: the script's shots, `<fault>:<client>`) that drops the reply to its `f`. */
export function faultDroppingReplyTo(open: Iterable<string>, client: string, f: string): FaultName | undefined {
  return [...open]
    .filter((k) => k.endsWith(`:${client}`))
    .map((k) => k.slice(0, k.lastIndexOf(':')) as FaultName)
    .find((fault) => faultFacts(fault)?.script?.dropsReplyTo === f);
}

/** The step's outcome with its reply dropped by `fault`: a step that did not complete is done, as scripted. */
export function droppedReplyOutcome(o: GateOutcome, fault: FaultName): GateOutcome {
  return o.status === 'diverged' ? { status: 'done', evidence: `${o.evidence}: its reply was dropped by ${fault}` } : o;
}
