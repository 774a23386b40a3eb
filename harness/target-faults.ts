import { HarnessError } from '../common/errors.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { EXECUTORS } from '../nemesis/fault-registry.ts';
import { HEAL_OF, type InjectAction } from '../target/adapter.ts';
import { createAdapter } from '../target/adapters.ts';
import { KUBERNETES_NO_PAUSE, KUBERNETES_PAUSE_INSTEAD } from '../target/kubernetes-adapter.ts';
import { CommandLog } from '../target/command-log.ts';
import type { TargetSpec } from '../target/target-spec.ts';

/** Which adapter (by its name in the target file) carries out each injecting action of a run. */
export type ActionAdapters = Partial<Record<InjectAction, string>>;

function refuse(target: TargetSpec, message: string, hint: string): never {
  throw new HarnessError('bad-arguments', `--target=${target.file}: ${message}`, { hint });
}

/**
 * What a run's faults need of a target, checked before anything connects (exit 254 naming what is missing, never
 * a fault quietly left out or faked): a server fault through the adapter the file names for it, able to do the
 * action and its undo; no fault that only works on servers fencepost starts; no proxy fault against a Redis whose
 * clients learn the real addresses (Cluster, Sentinel) and would go around the proxies. Returns the adapter of
 * each action.
 */
export function targetFaultAdapters(target: TargetSpec, faults: readonly FaultName[]): ActionAdapters {
  const byAction: ActionAdapters = {};
  for (const fault of faults) {
    const { onTarget, clientProxies, ownClientRoutes } = EXECUTORS[fault].needs;
    if (typeof onTarget === 'string')
      refuse(target, `${fault} cannot run against a target: ${onTarget}.`, `drop ${fault} from --nemesis`);
    if ((clientProxies || ownClientRoutes) && target.redis && target.redis.mode !== 'standalone')
      refuse(
        target,
        `${fault} acts in fencepost's proxies between the clients and the servers, but a Redis ${target.redis.mode} client learns the nodes' real addresses from the servers and would go around them: the fault would silently not happen.`,
        `drop ${fault}, or point the target at the Redis nodes themselves ("mode": "standalone")`,
      );
    if (!onTarget) continue;
    const action = onTarget.adapter;
    const name = target.serverFaults[fault];
    const undo = HEAL_OF[action];
    if (!name)
      refuse(
        target,
        `${fault} acts on the target's servers (${action}, then ${undo}), and the file names no adapter for it.`,
        `add "serverFaults": { "${fault}": "<adapter>" } naming an adapter that can ${action} and ${undo} (exec with ${action} and ${undo} commands, docker, kubernetes) — docs/targets.md`,
      );
    const adapter = createAdapter(target.adapters[name], new CommandLog(null), 'plan');
    for (const needed of [action, undo])
      if (!adapter.actions.includes(needed))
        refuse(
          target,
          `${fault} needs the adapter "${name}" (${adapter.spec.type}) to ${needed}, and it cannot${adapter.spec.type === 'exec' ? ` (no "${needed}" command)` : adapter.spec.type === 'kubernetes' ? `: ${KUBERNETES_NO_PAUSE}` : ''}.`,
          adapter.spec.type === 'exec'
            ? `add "${needed}": [<argv with {node}>] to adapters.${name}.commands`
            : adapter.spec.type === 'kubernetes'
              ? KUBERNETES_PAUSE_INSTEAD
              : `name another adapter for ${fault}`,
        );
    const other = byAction[action];
    if (other && other !== name)
      refuse(
        target,
        `two faults of the run ${action} servers through different adapters ("${other}" and "${name}").`,
        `name one adapter for every fault that ${action}s a server`,
      );
    byAction[action] = name;
  }
  return byAction;
}
