import type { FaultName } from '../faults/fault-names.ts';
import { EXECUTORS } from '../nemesis/fault-registry.ts';
import { HEAL_OF, type PlannedCommand } from '../target/adapter.ts';
import { createAdapter } from '../target/adapters.ts';
import { CommandLog } from '../target/command-log.ts';
import type { TargetEndpoint, TargetSpec } from '../target/target-spec.ts';
import { targetKeyOf } from '../locks/registry.ts';

/** The servers of a target a lock runs on: `counts` of each kind, in the file's order (etcd: all its members). */
export function lockEndpoints(
  spec: TargetSpec,
  counts: { redis: number; etcd: number },
): { redis: readonly TargetEndpoint[]; etcd: readonly TargetEndpoint[] } {
  return {
    redis: (spec.redis?.endpoints ?? []).slice(0, counts.redis),
    etcd: counts.etcd ? (spec.etcd?.endpoints ?? []) : [],
  };
}

/**
 * Every command a run with `faults` may execute on the target, in the order a shot runs them — the injection, the
 * adapter's evidence, the heal — for every server the fault can strike (a lock's Redis masters; else its etcd
 * members), then what the adapters run at the end (a Chaos Mesh clean-up). The same strings the run's command log
 * records (`target-commands.jsonl`): what `--dry-run` prints and `target check` lists. Duplicates are dropped.
 */
export function plannedCommands(
  spec: TargetSpec,
  faults: readonly FaultName[],
  servers: { redis: readonly TargetEndpoint[]; etcd: readonly TargetEndpoint[] },
  adapterOf: (fault: FaultName) => string | undefined = (f) => spec.serverFaults[f],
): { fault: FaultName; planned: PlannedCommand }[] {
  const out: { fault: FaultName; planned: PlannedCommand }[] = [];
  const seen = new Set<string>();
  const add = (fault: FaultName, planned: PlannedCommand) => {
    if (seen.has(planned.command)) return;
    seen.add(planned.command);
    out.push({ fault, planned });
  };
  const struck = servers.redis.length ? servers.redis : servers.etcd;
  const every = [...servers.redis, ...servers.etcd].map((e) => e.node);
  // First what each adapter's preflight executes before the run starts (on every server of the run).
  for (const fault of faults) {
    const name = adapterOf(fault);
    if (typeof EXECUTORS[fault].needs.onTarget !== 'object' || !name || !spec.adapters[name]) continue;
    for (const p of createAdapter(spec.adapters[name], new CommandLog(null), 'plan').preflightPlan(every))
      add(fault, p);
  }
  for (const fault of faults) {
    const onTarget = EXECUTORS[fault].needs.onTarget;
    const name = adapterOf(fault);
    if (typeof onTarget !== 'object' || !name || !spec.adapters[name]) continue;
    const adapter = createAdapter(spec.adapters[name], new CommandLog(null), 'plan');
    for (const e of struck) {
      if (!adapter.actions.includes(onTarget.adapter)) continue;
      add(fault, adapter.plan(onTarget.adapter, e.node));
      add(fault, adapter.plan('evidence', e.node));
      add(fault, adapter.plan(HEAL_OF[onTarget.adapter], e.node));
    }
  }
  return out;
}

/** Every key name a run of `lock` creates in its namespace `ns`, when fencepost knows them (its row's targetKey); else none. */
export function plannedKeyNames(ns: string, lock: string, accounts: number): string[] {
  const key = targetKeyOf(lock);
  return key ? Array.from({ length: accounts }, (_, n) => key(ns, `account-${n}`)) : [];
}

/**
 * The keys a run of `lock` creates (what `--dry-run` and `target check` show): in the run's own namespace under the
 * prefix, `<keyPrefix>run-<id>/`, whose id is made when the run starts.
 */
export function plannedKeys(spec: TargetSpec, lock: string, accounts: number): string[] {
  const ns = `${spec.keyPrefix}run-<id>/`;
  const names = plannedKeyNames(ns, lock, Math.min(accounts, 3));
  if (!names.length)
    return [
      `keys the lock itself names, each beginning with ${ns} (ctx.keyPrefix; the server's fence refuses any key outside ${spec.keyPrefix})`,
    ];
  return [`${names.join(', ')}${accounts > 3 ? ` … account-${accounts - 1}` : ''}`];
}
