import { HarnessError } from '../common/errors.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { ServerFaultAdapter } from '../target/adapter.ts';
import { createAdapter } from '../target/adapters.ts';
import { CommandLog } from '../target/command-log.ts';
import { proveFence, type FenceAnswer } from '../target/fence-proof.ts';
import { CLI } from '../common/cli-name.ts';
import { cleanupWouldDo } from '../target/cleanup-plan.ts';
import { surveyPrefix } from '../target/owned-keys-store.ts';
import { describeKeys, keysUnderPrefix } from '../target/prefix-keys.ts';
import type { InjectionGuard } from '../target/injection-guard.ts';
import type { NodeActions } from '../target/remote-node.ts';
import { targetServers, type TargetServersOf } from '../target/target-cluster.ts';
import { targetLogins, type TargetLogins } from '../target/target-credentials.ts';
import { readTargetFile } from '../target/target-file.ts';
import type { TargetSpec } from '../target/target-spec.ts';
import { targetKeyOf } from '../locks/registry.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import type { Config } from './run-argv.ts';
import { targetFaultAdapters, type ActionAdapters } from './target-faults.ts';

/** A run against a target, resolved before anything starts. */
export interface TargetPlan {
  readonly spec: TargetSpec;
  /** Null for a dry run, which connects to nothing and so needs no secret. */
  readonly logins: TargetLogins | null;
  readonly actionAdapters: ActionAdapters;
}

/**
 * Everything about a target that can be refused without connecting (exit 254, nothing started): the file, the
 * credentials in the environment, what the run's faults need of its adapters, the lock's servers, the time bound.
 */
export function planTarget(
  config: Readonly<Config>,
  strategy: ResolvedStrategy,
  faults: readonly FaultName[],
  opts: { logins: boolean } = { logins: true },
): TargetPlan {
  const spec = readTargetFile(config.target!);
  if (strategy.servers.zk)
    throw new HarnessError('bad-arguments', `--lock=${config.lock} runs on ZooKeeper, which a target cannot name yet`, {
      hint: 'test a lock on Redis or etcd against the target (docs/targets.md)',
    });
  if (!strategy.servers.redis && !strategy.servers.etcd)
    throw new HarnessError('bad-arguments', `--lock=${config.lock} uses no lock server a target could provide`, {
      hint: 'a target names Redis or etcd servers: test a lock that runs on them',
    });
  if (config.timeLimitS > spec.abort.maxMinutes * 60)
    throw new HarnessError(
      'bad-arguments',
      `--time-limit=${config.timeLimitS} is longer than target ${spec.name} allows (abort.maxMinutes: ${spec.abort.maxMinutes})`,
      { hint: `use --time-limit=${spec.abort.maxMinutes * 60} or less, or raise abort.maxMinutes in ${spec.file}` },
    );
  const actionAdapters = targetFaultAdapters(spec, faults);
  return { spec, logins: opts.logins ? targetLogins(spec) : null, actionAdapters };
}

/** Whether the lock puts its keys under ctx.keyPrefix by fencepost's own code (else: its author's promise). */
export function prefixedByUs(lock: string): boolean {
  return targetKeyOf(lock) !== undefined;
}

/** The adapters a run uses, with the log every command they run goes to. */
export function runAdapters(plan: TargetPlan, log: CommandLog, runId: string): Map<string, ServerFaultAdapter> {
  const names = new Set(Object.values(plan.actionAdapters));
  return new Map([...names].map((n) => [n, createAdapter(plan.spec.adapters[n], log, runId)]));
}

/** The actions of the run's remote nodes: its adapters by action, the guard, each injection's bound. */
export function nodeActions(
  plan: TargetPlan,
  adapters: ReadonlyMap<string, ServerFaultAdapter>,
  guard: InjectionGuard | null,
  config: Readonly<Config>,
): NodeActions {
  const of = (name: string | undefined) => (name ? adapters.get(name) : undefined);
  const pause = of(plan.actionAdapters.pause);
  const kill = of(plan.actionAdapters.kill);
  return {
    adapters: { ...(pause ? { pause } : {}), ...(kill ? { kill } : {}) },
    guard,
    // The longest a run holds a pause (a story's wait included) or keeps a node down (--restart-delay).
    boundMs: { pause: Math.max(config.pauseMs, config.storyWaitMs), kill: config.restartDelayMs },
  };
}

/** What connecting to the target showed before the run: the fence, the versions. */
export interface TargetReadiness {
  readonly fence: FenceAnswer[];
  readonly versions: Record<string, string>;
}

/**
 * Connects before anything starts and refuses (254) what would make the run unsafe or meaningless: a server that
 * does not answer, an adapter whose preflight finds a problem, credentials that can read outside the prefix (unless
 * the file accepts it, said loudly), or any key already under the prefix (another run's, or a dead one's).
 */
export async function checkTargetReady(
  plan: TargetPlan,
  servers: TargetServersOf,
  adapters: ReadonlyMap<string, ServerFaultAdapter>,
  log: (line: string) => void,
): Promise<TargetReadiness> {
  const { spec } = plan;
  const all = [...servers.redis, ...servers.etcd];
  const silent = [];
  for (const n of all) if (!(await n.reachable())) silent.push(`${n.name} (${n.host}:${n.port})`);
  if (silent.length)
    throw new HarnessError('bad-arguments', `target ${spec.name}: ${silent.join(', ')} did not answer`, {
      hint: `check that the servers run and the credentials are right: fencepost target check ${spec.file}`,
    });
  const problems: string[] = [];
  for (const a of adapters.values()) problems.push(...(await a.preflight(all.map((n) => n.target.node))));
  if (problems.length)
    throw new HarnessError('bad-arguments', `target ${spec.name}: ${problems.join('; ')}`, {
      hint: 'fix the adapter (docs/targets.md), or drop the faults that use it',
    });
  const fence = await proveFence(spec.keyPrefix, servers.redis, servers.etcd);
  const open = fence.filter((f) => f.fence !== 'fenced');
  if (open.length && !spec.unfencedAccepted)
    throw new HarnessError(
      'bad-arguments',
      `target ${spec.name}: the credentials are not fenced to ${spec.keyPrefix}: ${open.map((f) => `${f.server}: ${f.said}`).join('; ')}`,
      {
        hint: 'give fencepost a user that may touch only keys under the prefix (Redis ACL ~<prefix>*, an etcd role with a prefix permission), or — knowing it can touch anything — say "unfenced-credentials-accepted": true',
      },
    );
  for (const f of open) log(`fencepost: WARNING: ${f.server}: ${f.said} — the file accepts unfenced credentials`);
  const left = await keysUnderPrefix(spec.keyPrefix, servers.redis, servers.etcd);
  if (left.total)
    throw new HarnessError(
      'bad-arguments',
      `target ${spec.name}: ${left.total} key(s) already exist under ${spec.keyPrefix}: ${describeKeys(left)}. The prefix must be the run's alone`,
      {
        hint: await surveyPrefix(spec.keyPrefix, servers.redis, servers.etcd).then(
          (plan) => cleanupWouldDo(plan, spec.file, CLI),
          (err: Error) => `these keys are not fencepost's unless a run of ours died; check them first (${err.message})`,
        ),
      },
    );
  const versions: Record<string, string> = {};
  for (const n of all)
    versions[`${n.kind === 'redis' ? 'redis-server' : 'etcd'} (${n.name})`] = await n.version().catch(() => 'unknown');
  return { fence, versions };
}

/** The remote nodes for the run's lock, its keys in `namespace` (the run's own, under the file's prefix). */
export function runServers(
  plan: TargetPlan,
  strategy: ResolvedStrategy,
  actions: NodeActions,
  namespace: string,
): TargetServersOf {
  if (!plan.logins) throw new Error('runServers: a plan without logins (a dry run) connects to nothing');
  return targetServers(plan.spec, strategy.servers, plan.logins, actions, namespace);
}
