import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { EXECUTORS } from '../nemesis/fault-registry.ts';
import { healthPlan } from '../target/health-probe.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { Config } from './run-argv.ts';
import { checkStrategyOptions, withEnsembleSizes } from './strategy-options.ts';
import { lockEndpoints, plannedCommands, plannedKeys } from './target-commands.ts';
import { planTarget, prefixedByUs } from './target-plan.ts';

/** What a run against a target would do, decided without connecting: its commands and its keys. */
export interface DryRun {
  readonly lines: string[];
  /** Exactly the command strings the run may execute (its `target-commands.jsonl` holds a subset of these). */
  readonly commands: string[];
}

/**
 * `--dry-run --target=<file>`: everything a run would refuse is refused the same way (exit 254), then every
 * command it may execute on the target and every key it would touch are printed — and nothing is executed or
 * connected to. Each command line starts with `$ ` and is the exact string the run's command log records.
 */
export async function dryRun(config: Readonly<Config>): Promise<DryRun> {
  if (!config.target)
    throw new HarnessError('bad-arguments', '--dry-run shows what a run would do to a target; give --target=<file>', {
      hint: 'fencepost --lock=<lock> --target=<file> --nemesis=<fault,…> --dry-run',
    });
  const strategy = withEnsembleSizes(config, await loadStrategy(config.lock));
  checkStrategyOptions(config, strategy);
  const faults: FaultName[] = config.nemesis ?? [...strategy.defaultFaults];
  const plan = planTarget(config, strategy, faults, { logins: false });
  const { spec } = plan;
  const servers = lockEndpoints(spec, strategy.servers);
  const planned = plannedCommands(spec, faults, servers, (f) => {
    const onTarget = EXECUTORS[f].needs.onTarget;
    return typeof onTarget === 'object' ? plan.actionAdapters[onTarget.adapter] : undefined;
  });
  const probe = spec.health ? healthPlan(spec.health) : null;
  const all = [...servers.redis.map((e) => ['redis', e] as const), ...servers.etcd.map((e) => ['etcd', e] as const)];
  const lines = [
    `fencepost --dry-run: --lock=${config.lock} against target ${spec.name} (${spec.file}); nothing was connected to or executed`,
    '',
    'servers (fencepost starts, stops and wipes none of them; its own Postgres holds the resource):',
    ...all.map(([kind, e]) => `  ${kind.padEnd(5)} ${e.name.padEnd(12)} ${e.host}:${e.port}  adapter node "${e.node}"`),
    '',
    `keys, all in the run's own namespace ${spec.keyPrefix}run-<id>/ (the run refuses to start while any key exists under ${spec.keyPrefix}):`,
    `  the lock creates: ${plannedKeys(spec, config.lock, config.accounts).join('; ')}${prefixedByUs(config.lock) ? '' : ' — the lock must honour ctx.keyPrefix itself'}`,
    `  recorded before any client starts: ${spec.keyPrefix}fencepost-owned:run-<id> on each of the run's servers, and <run dir>/target-keys.json`,
    `  the harness reads (before and after the run): ${[
      ...(servers.redis.length ? [`SCAN MATCH ${spec.keyPrefix}* on each Redis`] : []),
      ...(servers.etcd.length ? [`a range read of ${spec.keyPrefix} on etcd`] : []),
    ].join(', ')}; and the fence proof: a read, a write and a delete of one random key outside the prefix (${[
      ...(servers.redis.length ? ['GET, SET NX PX 5000, DEL'] : []),
      ...(servers.etcd.length ? ['get, put, delete'] : []),
    ].join('; ')}), each of which the server must refuse`,
    `  at the end (also on Ctrl-C, and by \`fencepost cleanup --target=${spec.file}\` once the run is gone): the run's keys, then its record, are deleted by name; no other key under ${spec.keyPrefix} is touched`,
    '',
    `faults: ${faults.join(', ') || 'none'}`,
    ...faults.map((f) => {
      const onTarget = EXECUTORS[f].needs.onTarget;
      return typeof onTarget === 'object'
        ? `  ${f}: on the servers, through adapter "${plan.actionAdapters[onTarget.adapter]}" (${onTarget.adapter})`
        : `  ${f}: on fencepost's own clients and proxies; nothing is executed on the target`;
    }),
    '',
    planned.length
      ? "commands the run may execute on the target (first each adapter's preflight; then each at most once per shot, in this order: inject, evidence, heal):"
      : 'commands the run may execute on the target: none (no fault of the run acts on the servers)',
    ...planned.map(
      ({ fault, planned: p }) => `  # ${fault}: ${p.action} ${p.node} (adapter ${p.adapter})\n  $ ${p.command}`,
    ),
    // The probe is a command the run executes too, on this machine (audit R16: it was in neither list).
    ...(probe
      ? [
          '',
          `the health probe, executed on this machine every ${spec.health!.intervalMs} ms while the clients run:`,
          `  $ ${probe.command}`,
        ]
      : []),
  ];
  return { lines, commands: [...planned.map((p) => p.planned.command), ...(probe ? [probe.command] : [])] };
}

export async function dryRunCommand(config: Readonly<Config>): Promise<number> {
  const { lines } = await dryRun(config);
  console.log(lines.join('\n'));
  return EXIT.valid;
}
