import path from 'node:path';
import type { AnyCluster, Cluster } from '../cluster/cluster.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { Shutdown, TeardownStep } from '../common/shutdown.ts';
import type { ServerFaultAdapter } from '../target/adapter.ts';
import { CommandLog } from '../target/command-log.ts';
import { InjectionGuard } from '../target/injection-guard.ts';
import { describeKeys, keysUnderPrefix, removeKeysUnderPrefix } from '../target/prefix-keys.ts';
import type { NodeActions } from '../target/remote-node.ts';
import { targetCluster, type TargetServersOf } from '../target/target-cluster.ts';
import { tlsOptions } from '../target/remote-servers.ts';
import type { TargetRecord } from '../target/target-record.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import type { Config } from './run-argv.ts';
import { TargetAbort } from './target-abort.ts';
import {
  checkTargetReady,
  nodeActions,
  planTarget,
  prefixedByUs,
  runAdapters,
  runServers,
  type TargetPlan,
  type TargetReadiness,
} from './target-plan.ts';

/** The run's file of every command executed on the target. */
export const COMMAND_LOG_FILE = 'target-commands.jsonl';

/**
 * One run against a target, from its plan to its end: what it is refused with before anything starts (`open`: the
 * file, the faults' adapters, the credentials, the servers' answers, the fence, no key under the prefix), what it
 * registers with the shutdown (the removal of every key under the prefix, the injection guard's end — so Ctrl-C and
 * a crash remove them too), the cluster it runs on, and its end (keys removed and counted).
 */
export class TargetSession {
  readonly actions: NodeActions;
  readonly abort: TargetAbort;
  private removeKeys: TeardownStep | null = null;
  private guard: InjectionGuard | null = null;

  private constructor(
    readonly plan: TargetPlan,
    readonly servers: TargetServersOf,
    readonly readiness: TargetReadiness,
    private readonly adapters: ReadonlyMap<string, ServerFaultAdapter>,
    private readonly log: CommandLog,
    actions: NodeActions,
    private readonly runId: string,
    private readonly lockName: string,
    private readonly say: (line: string) => void,
  ) {
    this.actions = actions;
    this.abort = new TargetAbort(plan.spec.abort, plan.spec.health, say);
  }

  static async open(
    config: Readonly<Config>,
    strategy: ResolvedStrategy,
    faults: readonly FaultName[],
    out: (line: string) => void,
  ): Promise<TargetSession> {
    const plan = planTarget(config, strategy, faults);
    const runId = `${plan.spec.name}-${process.pid}-${Date.now()}`;
    const log = new CommandLog(null, 'harness', true);
    const adapters = runAdapters(plan, log, runId);
    const actions = nodeActions(plan, adapters, null, config);
    const servers = runServers(plan, strategy, actions);
    const readiness = await checkTargetReady(plan, servers, adapters, out);
    out(
      `fencepost: target ${plan.spec.name}: ${[...servers.redis, ...servers.etcd].length} servers answer, keys under ${plan.spec.keyPrefix} (none there now), credentials ${readiness.fence.every((f) => f.fence === 'fenced') ? 'fenced to it' : 'NOT fenced to it'}`,
    );
    return new TargetSession(plan, servers, readiness, adapters, log, actions, runId, config.lock, out);
  }

  /**
   * Once the run has its folder: the command log goes there, the injection guard starts, and the removal of every
   * key under the prefix is registered — before the clients' stop, so it runs after them on any way out.
   */
  attach(runDir: string, shutdown: Shutdown): void {
    this.log.attach(path.join(runDir, COMMAND_LOG_FILE));
    if (Object.keys(this.actions.adapters).length) {
      this.guard = InjectionGuard.start(path.join(runDir, 'guard'), {
        adapters: { ...this.plan.spec.adapters },
        commandLog: path.join(runDir, COMMAND_LOG_FILE),
        runId: this.runId,
      });
      this.actions.guard = this.guard;
    }
    shutdown.add('stop the injection guard', async () => void (await this.guard?.stop()));
    this.removeKeys = shutdown.add(`remove the run's keys under ${this.plan.spec.keyPrefix}`, () =>
      this.removeAll().then(() => {}),
    );
  }

  /** The run's cluster: the target's servers and fencepost's own local Postgres. */
  cluster(local: Cluster): AnyCluster {
    return targetCluster(this.servers, local);
  }

  /** What the clients get besides the servers' endpoints: the prefix for their keys, TLS towards etcd. */
  clientTarget(): { keyPrefix: string; etcdTls?: { ca?: string; servername?: string } } {
    const tls = this.plan.spec.etcd?.tls;
    return {
      keyPrefix: this.plan.spec.keyPrefix,
      ...(tls && this.servers.etcd.length ? { etcdTls: tlsOptions(tls) } : {}),
    };
  }

  record(): TargetRecord {
    const { spec } = this.plan;
    return {
      name: spec.name,
      file: spec.file,
      keyPrefix: spec.keyPrefix,
      servers: [...this.servers.redis, ...this.servers.etcd].map((n) => ({
        name: n.name,
        kind: n.kind,
        host: n.host,
        port: n.port,
        node: n.target.node,
      })),
      adapters: Object.fromEntries(
        Object.entries(this.plan.actionAdapters).map(([action, name]) => [
          action,
          `${spec.adapters[name!].type} adapter "${name}"`,
        ]),
      ),
      fence: this.readiness.fence.map((f) => ({ ...f })),
      prefixedBy: prefixedByUs(this.lockName) ? 'fencepost' : 'the lock',
    };
  }

  private async removeAll(): Promise<{ keysLeft: number; keysRemoved: Record<string, number> }> {
    const { spec } = this.plan;
    const { removed, failed } = await removeKeysUnderPrefix(spec.keyPrefix, this.servers.redis, this.servers.etcd);
    for (const [server, why] of Object.entries(failed))
      this.say(
        `fencepost: could not remove the run's keys on ${server}: ${why}; \`fencepost cleanup --target=${spec.file}\` removes them later`,
      );
    for (const a of this.adapters.values()) await a.cleanup(this.runId).catch(() => []);
    const left = await keysUnderPrefix(spec.keyPrefix, this.servers.redis, this.servers.etcd).catch(() => null);
    if (left?.total) this.say(`fencepost: ${left.total} key(s) left under ${spec.keyPrefix}: ${describeKeys(left)}`);
    return { keysLeft: left?.total ?? -1, keysRemoved: removed };
  }

  /** The normal end (clients stopped, faults healed): every key under the prefix removed, then counted. */
  async finish(): Promise<Pick<TargetRecord, 'keysLeft' | 'keysRemoved'>> {
    this.removeKeys?.cancel();
    this.abort.stop();
    const out = await this.removeAll();
    if (this.guard && !(await this.guard.stop()))
      this.say(
        `fencepost: the injection guard (pid ${this.guard.pid}) had not exited yet; it will once it reads that the run is over`,
      );
    return out;
  }
}
