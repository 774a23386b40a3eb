import { FAULT_CATALOGUE, faultFacts, type FaultColumnId, type FaultName, type FaultScenarioId } from './catalogue.ts';

/** The names `--nemesis` accepts, in catalogue order (faults/catalogue.ts owns them and their facts). */
export type { FaultColumnId, FaultName, FaultScenarioId };
export const FAULT_NAMES = Object.keys(FAULT_CATALOGUE) as FaultName[];

/** Other names `--nemesis` takes for a fault (its facts' `aliases`), and the fault each one is. */
export const FAULT_ALIASES: Readonly<Record<string, FaultName>> = Object.fromEntries(
  FAULT_NAMES.flatMap((f) => (faultFacts(f)?.aliases ?? []).map((a) => [a, f])),
);

/** Where a fault is listed among the others (the catalogue's order); past every known fault for an unknown name. */
export function faultRank(f: string): number {
  const i = (FAULT_NAMES as string[]).indexOf(f);
  return i < 0 ? FAULT_NAMES.length : i;
}
