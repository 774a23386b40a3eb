import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { leftFaultedSentence } from '../checkers/left-faulted.ts';
import { HarnessError } from '../common/errors.ts';
import { startTime } from '../common/pid-registry.ts';
import type { AnyCluster, Cluster } from '../cluster/cluster.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { Shutdown, TeardownStep } from '../common/shutdown.ts';
import type { ServerFaultAdapter } from '../target/adapter.ts';
import { CommandLog } from '../target/command-log.ts';
import { InjectionGuard } from '../target/injection-guard.ts';
import {
  formatOwnedKeys,
  manifestKey,
  namespaceOf,
  newOwnedId,
  OWNED_KEYS_FILE,
  UNTIL_MARGIN_MS,
  type OwnedKeys,
} from '../target/owned-keys.ts';
import { recordOwned, removeOwned } from '../target/owned-keys-store.ts';
import { describeKeys, keysUnderPrefix } from '../target/prefix-keys.ts';
import type { NodeActions } from '../target/remote-node.ts';
import { targetCluster, type TargetServersOf } from '../target/target-cluster.ts';
import { tlsOptions } from '../target/remote-servers.ts';
import type { TargetRecord } from '../target/target-record.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import type { Config } from './run-argv.ts';
import { TargetAbort } from './target-abort.ts';
import { plannedKeyNames } from './target-commands.ts';
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

/** How often the harness looks whether its injection guard still runs. */
const GUARD_WATCH_MS = 500;

/** The run's file of every command executed on the target. */
export const COMMAND_LOG_FILE = 'target-commands.jsonl';

/**
 * One run against a target, from its plan to its end: what it is refused with before anything starts (`open`: the
 * file, the faults' adapters, the credentials, the servers' answers, the fence, no key under the prefix), the record
 * of the keys it owns (its namespace under the prefix, written into the prefix before any client starts, and beside
 * the run), what it registers with the shutdown (the removal of its own keys, the injection guard's end — so Ctrl-C
 * and a crash remove them too), the cluster it runs on, and its end (its keys removed and counted; nobody else's).
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
    readonly owned: OwnedKeys,
    private readonly lockName: string,
    private readonly say: (line: string) => void,
  ) {
    this.actions = actions;
    this.abort = new TargetAbort(plan.spec.abort, plan.spec.health, say, log);
  }

  static async open(
    config: Readonly<Config>,
    strategy: ResolvedStrategy,
    faults: readonly FaultName[],
    out: (line: string) => void,
  ): Promise<TargetSession> {
    const plan = planTarget(config, strategy, faults);
    const runId = `${plan.spec.name}-${process.pid}-${Date.now()}`;
    const owned = ownedKeys(plan, config, Date.now());
    const log = new CommandLog(null, 'harness', true);
    const adapters = runAdapters(plan, log, runId);
    const actions = nodeActions(plan, adapters, null, config);
    const servers = runServers(plan, strategy, actions, owned.namespace);
    const readiness = await checkTargetReady(plan, servers, adapters, out);
    out(
      `fencepost: target ${plan.spec.name}: ${[...servers.redis, ...servers.etcd].length} servers answer, the run's keys under ${owned.namespace} (recorded in ${manifestKey(plan.spec.keyPrefix, owned.id)} before the clients start), credentials ${readiness.fence.every((f) => f.fence === 'fenced') ? 'fenced to the prefix' : 'NOT fenced to the prefix'}`,
    );
    return new TargetSession(plan, servers, readiness, adapters, log, actions, runId, owned, config.lock, out);
  }

  /**
   * Once the run has its folder: the command log and the record of the run's keys go there, the injection guard
   * starts, and the removal of the run's keys is registered — before the clients' stop, so it runs after them on any
   * way out.
   */
  attach(runDir: string, shutdown: Shutdown): void {
    this.log.attach(path.join(runDir, COMMAND_LOG_FILE));
    // The folder's copy of the record: cleanup finds the run's keys from here too, should the prefix's copy be lost.
    fs.writeFileSync(path.join(runDir, OWNED_KEYS_FILE), formatOwnedKeys(this.owned), { mode: 0o600 });
    if (Object.keys(this.actions.adapters).length) {
      this.guard = InjectionGuard.start(path.join(runDir, 'guard'), {
        adapters: { ...this.plan.spec.adapters },
        commandLog: path.join(runDir, COMMAND_LOG_FILE),
        runId: this.runId,
      });
      this.actions.guard = this.guard;
      const guard = this.guard;
      // The guard watches the harness; this watches the guard (audit R7: a dead guard went unnoticed, and a kill -9
      // afterwards left the server stopped). A run whose injections nothing would undo ends, its verdict unknown.
      this.abort.watch(
        () =>
          guard.alive()
            ? null
            : `the injection guard (pid ${guard.pid}) is gone: nothing would heal the target's servers if fencepost died`,
        GUARD_WATCH_MS,
      );
    }
    shutdown.add('stop the injection guard', async () => {
      // Its watch first: the guard's exit on the way out is no reason to abort.
      this.abort.stop();
      await this.guard?.stop();
    });
    this.removeKeys = shutdown.add(`remove the run's keys under ${this.owned.namespace}`, () =>
      this.removeAll().then(() => {}),
    );
  }

  /**
   * The run's cluster: the target's servers and fencepost's own local Postgres. Its start records the run's keys in
   * the prefix once the servers answer: after the run's folder and its removal step exist (so a run refused earlier,
   * or stopped while it provisions, leaves no record) and before any client starts (so no key is ever unrecorded).
   */
  cluster(local: Cluster): AnyCluster {
    const cluster = targetCluster(this.servers, local);
    const start = cluster.start.bind(cluster);
    return {
      ...cluster,
      start: async () => {
        await start();
        await this.recordKeys();
      },
    };
  }

  /** The run's record in the prefix, on every server of the run that takes it (254 when none does). */
  private async recordKeys(): Promise<void> {
    const { spec } = this.plan;
    const recorded = await recordOwned(this.owned, this.servers.redis, this.servers.etcd);
    const failed = Object.entries(recorded.failed).map(([s, why]) => `${s}: ${why}`);
    if (!recorded.on.length)
      throw new HarnessError(
        'bad-arguments',
        `target ${spec.name}: could not record the run's keys in ${spec.keyPrefix}: ${failed.join('; ')}`,
        { hint: 'a run creates no key it has not recorded first; check that the user may write under the prefix' },
      );
    if (failed.length)
      this.say(
        `fencepost: the run's record is on ${recorded.on.join(', ')} and in its folder, not on ${failed.join('; ')}`,
      );
  }

  /** What the clients get besides the servers' endpoints: the run's namespace for their keys, TLS towards etcd. */
  clientTarget(): { keyPrefix: string; etcdTls?: { ca?: string; servername?: string } } {
    const tls = this.plan.spec.etcd?.tls;
    return {
      keyPrefix: this.owned.namespace,
      ...(tls && this.servers.etcd.length ? { etcdTls: tlsOptions(tls) } : {}),
    };
  }

  record(): TargetRecord {
    const { spec } = this.plan;
    return {
      name: spec.name,
      file: spec.file,
      keyPrefix: spec.keyPrefix,
      namespace: this.owned.namespace,
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

  /** The run's own keys (its namespace, then its record), and only those; then what is left, its own and others'. */
  private async removeAll(): Promise<{ keysLeft: number; keysRemoved: Record<string, number> }> {
    const { spec } = this.plan;
    const { removed, failed } = await removeOwned(this.owned, this.servers.redis, this.servers.etcd);
    for (const [server, why] of Object.entries(failed))
      this.say(
        `fencepost: could not remove the run's keys on ${server}: ${why}; \`fencepost cleanup --target=${spec.file}\` removes them later (they are recorded)`,
      );
    for (const a of this.adapters.values()) await a.cleanup(this.runId).catch(() => []);
    const left = await keysUnderPrefix(this.owned.namespace, this.servers.redis, this.servers.etcd).catch(() => null);
    if (left?.total)
      this.say(`fencepost: ${left.total} key(s) of the run left under ${this.owned.namespace}: ${describeKeys(left)}`);
    const others = await keysUnderPrefix(spec.keyPrefix, this.servers.redis, this.servers.etcd).catch(() => null);
    if (others?.total && !left?.total)
      this.say(
        `fencepost: ${others.total} key(s) under ${spec.keyPrefix} that are not this run's were left alone: ${describeKeys(others)}`,
      );
    return { keysLeft: left?.total ?? -1, keysRemoved: removed };
  }

  /**
   * The normal end (clients stopped, faults healed): the run's own keys removed, then counted; and, loudly, every
   * server a heal could not undo (audit R3), whose injection stays armed in the guard's folder for `cleanup`.
   */
  async finish(): Promise<Pick<TargetRecord, 'keysLeft' | 'keysRemoved' | 'leftFaulted'>> {
    this.removeKeys?.cancel();
    this.abort.stop();
    const out = await this.removeAll();
    if (this.guard && !(await this.guard.stop()))
      this.say(
        `fencepost: the injection guard (pid ${this.guard.pid}) had not exited yet; it will once it reads that the run is over`,
      );
    const leftFaulted = [...this.servers.redis, ...this.servers.etcd].flatMap((n) => n.leftFaulted());
    for (const l of leftFaulted)
      this.say(
        `fencepost: TARGET LEFT FAULTED: ${leftFaultedSentence(l)} (${l.action} not undone: ${l.error}); \`fencepost cleanup\` tries it again`,
      );
    return { ...out, ...(leftFaulted.length ? { leftFaulted } : {}) };
  }
}

/** The record of the keys a run will own, made before it connects: its namespace, and the names it knows. */
function ownedKeys(plan: TargetPlan, config: Readonly<Config>, now: number): OwnedKeys {
  const id = newOwnedId(now);
  const namespace = namespaceOf(plan.spec.keyPrefix, id);
  return {
    format: 1,
    id,
    target: plan.spec.name,
    keyPrefix: plan.spec.keyPrefix,
    namespace,
    keys: plannedKeyNames(namespace, config.lock, config.accounts),
    host: os.hostname(),
    pid: process.pid,
    pidStart: startTime(process.pid) ?? 0,
    startedAt: now,
    until: now + plan.spec.abort.maxMinutes * 60_000 + UNTIL_MARGIN_MS,
  };
}
