import { FAULT_CATALOGUE, type FaultName } from './fault-catalogue.ts';

/** The names `--nemesis` accepts, in catalogue order (history/fault-catalogue.ts owns them and their facts). */
export type { FaultName };
export const FAULT_NAMES = Object.keys(FAULT_CATALOGUE) as FaultName[];

/** Where a fault is listed among the others (the catalogue's order); past every known fault for an unknown name. */
export function faultRank(f: string): number {
  const i = (FAULT_NAMES as string[]).indexOf(f);
  return i < 0 ? FAULT_NAMES.length : i;
}
