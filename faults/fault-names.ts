import { FAULT_CATALOGUE, type FaultName } from './catalogue.ts';

/** The names `--nemesis` accepts, in catalogue order (faults/catalogue.ts owns them and their facts). */
export type { FaultName };
export const FAULT_NAMES = Object.keys(FAULT_CATALOGUE) as FaultName[];

/**
 * Other names `--nemesis` takes for a catalogue fault, and the fault each one is. `replica-lag` is what the
 * failover fault does: it holds the replication link for at least a TTL, lets a client acquire on the primary, then
 * kills the primary and promotes the replica that lacks the key (faults/failover/inject.ts). The history and the
 * report name the fault by its catalogue name.
 */
export const FAULT_ALIASES: Readonly<Record<string, FaultName>> = { 'replica-lag': 'failover' as FaultName };

/** Where a fault is listed among the others (the catalogue's order); past every known fault for an unknown name. */
export function faultRank(f: string): number {
  const i = (FAULT_NAMES as string[]).indexOf(f);
  return i < 0 ? FAULT_NAMES.length : i;
}
