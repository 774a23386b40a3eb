import type { FaultExecutor } from './fault.ts';
import { FAULT_CATALOGUE, type FaultName } from '../faults/catalogue.ts';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import type { FaultTiming } from './fault-needs.ts';

const isExecutor = (v: unknown): v is FaultExecutor =>
  typeof v === 'object' && v !== null && typeof (v as Partial<FaultExecutor>).start === 'function';

/**
 * A fault's executor: the export of `faults/<name>/inject.ts` whose `name` is the fault's, found by name as a plugin
 * is: the injections stand a floor above this room (they use the nemesis's machinery, `FaultExecutor` and the
 * critical sections), so the nemesis cannot import them by a list, and no list here grows with a new fault. The
 * fault's one line is in faults/catalogue.ts (docs/architecture.md#the-code-by-floor).
 */
async function load(name: FaultName): Promise<FaultExecutor> {
  const file = `../faults/${name}/inject.ts`;
  return executorIn(name, (await import(file)) as Record<string, unknown>);
}

/** The executor named `name` among a module's exports; an error that says what to add when there is none. */
export function executorIn(name: string, mod: Readonly<Record<string, unknown>>): FaultExecutor {
  const found = Object.values(mod).find((v) => isExecutor(v) && v.name === name);
  if (!isExecutor(found))
    throw new Error(
      `faults/${name}/inject.ts exports no fault executor named '${name}': every fault of faults/catalogue.ts needs one (export const x: FaultExecutor = { name: '${name}', … })`,
    );
  return found;
}

/** One executor per fault of the catalogue (faults/catalogue.ts), loaded once. */
export const EXECUTORS: Readonly<Record<FaultName, FaultExecutor>> = Object.fromEntries(
  await Promise.all(FAULT_NAMES.map(async (name) => [name, await load(name)] as const)),
) as Record<FaultName, FaultExecutor>;

/** What a run with `faults` must prepare: the union of the faults' own declarations (fault-needs.ts). */
export interface RunNeeds {
  clockShim: boolean;
  failoverPair: boolean;
  ownClientRoutes: boolean;
  /** The lock's Postgres sessions get framed routes of their own (fault-needs.ts). */
  lockSessionRoutes: boolean;
  clientProxies: boolean;
  /** Every server in a cgroup of its own and the run's nftables table (server↔server partitions). */
  serverNet: boolean;
  /** A fault aims by the clients' ops as they happen: clients send each op at once, not in batches. */
  liveOps: boolean;
  /** The longest of the faults' minimum useful runs, in ms; 0 when none declares one. */
  minRunMs(timing: FaultTiming): number;
  /** The widest critical section a fault of the run needs (its `minSectionMs`), in ms; 0 when none does. */
  minSectionMs(timing: { ttlMs: number }): number;
}

export function runNeeds(faults: readonly FaultName[]): RunNeeds {
  const needs = faults.map((f) => EXECUTORS[f].needs);
  return {
    clockShim: faults.some((f) => FAULT_CATALOGUE[f].movesClocks),
    failoverPair: needs.some((n) => n.failoverPair === true),
    ownClientRoutes: needs.some((n) => n.ownClientRoutes === true),
    lockSessionRoutes: needs.some((n) => n.lockSessionRoutes === true),
    clientProxies: needs.some((n) => n.clientProxies === true),
    serverNet: needs.some((n) => n.serverNet === true),
    liveOps: needs.some((n) => n.liveOps === true),
    minRunMs: (timing) => Math.max(0, ...needs.map((n) => n.minRunMs?.(timing) ?? 0)),
    minSectionMs: (timing) => Math.max(0, ...needs.map((n) => n.minSectionMs?.(timing) ?? 0)),
  };
}
