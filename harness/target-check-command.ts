import { CLI } from '../common/cli-name.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { EXECUTORS } from '../nemesis/fault-registry.ts';
import { HEAL_OF } from '../target/adapter.ts';
import { createAdapter } from '../target/adapters.ts';
import { CommandLog } from '../target/command-log.ts';
import { healthPlan, probeHealth } from '../target/health-probe.ts';
import { proveFence } from '../target/fence-proof.ts';
import { cleanupWouldDo } from '../target/cleanup-plan.ts';
import { surveyPrefix } from '../target/owned-keys-store.ts';
import { describeKeys, keysUnderPrefix } from '../target/prefix-keys.ts';
import { targetServers } from '../target/target-cluster.ts';
import { targetLogins } from '../target/target-credentials.ts';
import { readTargetFile } from '../target/target-file.ts';
import type { TargetSpec } from '../target/target-spec.ts';
import { lockEndpoints, plannedCommands } from './target-commands.ts';

/** `target check <file>`; the only `target` verb so far. */
export async function targetCommand(
  rest: readonly string[],
  out: (line: string) => void = console.log,
): Promise<number> {
  if (rest[0] !== 'check' || rest.length !== 2)
    throw new HarnessError(
      'bad-arguments',
      `target: expected \`target check <file>\`, got \`target ${rest.join(' ')}\``,
      {
        hint: `${CLI} target check fencepost.target.json`,
      },
    );
  return targetCheck(rest[1], out);
}

/**
 * A dry run against a target that connects: every server answers (its version), the credentials are fenced to the
 * prefix (a read, a write and a delete outside it are refused — or it says so loudly), nothing is under the prefix,
 * each adapter's preflight passes, the health probe passes once; then which faults can run and through what, and
 * every command and key a run would touch. Exit 0 when a run may start, 254 with the problems otherwise. It leaves nothing behind
 * (a probe write that an open fence let through is deleted again, and expires by itself).
 */
export async function targetCheck(file: string, out: (line: string) => void): Promise<number> {
  const spec = readTargetFile(file);
  const logins = targetLogins(spec);
  const servers = targetServers(
    spec,
    { redis: spec.redis?.endpoints.length ?? 0, etcd: spec.etcd?.endpoints.length ?? 0, zk: 0 },
    logins,
    { adapters: {}, guard: null, boundMs: { pause: 0, kill: 0 } },
  );
  const problems: string[] = [];
  out(`target ${spec.name} (${spec.file}): "i-own-this": true; hosts allowed: ${spec.allowHosts.join(', ')}`);
  out('servers');
  const all = [...servers.redis, ...servers.etcd];
  for (const n of all) {
    const up = await n.reachable();
    if (!up) problems.push(`${n.name} (${n.host}:${n.port}) does not answer`);
    const version = up ? await n.version().catch((e: Error) => `version unknown: ${e.message}`) : 'no answer';
    const user = (n.kind === 'redis' ? logins.redis : logins.etcd)?.username ?? 'default user';
    out(
      `  ${n.kind.padEnd(5)} ${n.name.padEnd(12)} ${`${n.host}:${n.port}`.padEnd(21)} ${version.padEnd(10)} user ${user}`,
    );
  }
  const reachable = all.length && problems.length === 0;
  if (reachable) await fenceAndKeys(spec, servers, problems, out);
  await adaptersOf(
    spec,
    all.map((n) => n.target.node),
    problems,
    out,
  );
  faultTable(spec, out);
  await healthOnce(spec, problems, out);
  commandsAndKeys(spec, out);
  out(problems.length ? `NOT READY: ${problems.join('; ')}` : `READY: a run may start against ${spec.name}`);
  return problems.length ? EXIT.badArguments : EXIT.valid;
}

async function fenceAndKeys(
  spec: TargetSpec,
  servers: ReturnType<typeof targetServers>,
  problems: string[],
  out: (line: string) => void,
): Promise<void> {
  out(
    `fence (a read, a write and a delete of one random key outside ${spec.keyPrefix} must each be refused by the server for the key)`,
  );
  for (const f of await proveFence(spec.keyPrefix, servers.redis, servers.etcd)) {
    if (f.fence === 'fenced') out(`  ${f.server}: ✓ ${f.said}`);
    else {
      out(`  ${f.server}: !!! FENCE ${f.fence.toUpperCase()} !!! ${f.said}`);
      if (!spec.unfencedAccepted) problems.push(`${f.server}: the credentials are not fenced to ${spec.keyPrefix}`);
      else out(`  ${f.server}: the file accepts unfenced credentials ("unfenced-credentials-accepted": true)`);
    }
  }
  const left = await keysUnderPrefix(spec.keyPrefix, servers.redis, servers.etcd);
  out(`keys under ${spec.keyPrefix} now: ${left.total}${left.total ? ` (${describeKeys(left)})` : ''}`);
  if (left.total) {
    const would = await surveyPrefix(spec.keyPrefix, servers.redis, servers.etcd).then(
      (plan) => cleanupWouldDo(plan, spec.file, CLI),
      (err: Error) => `these keys are not fencepost's unless a run of ours died; check them first (${err.message})`,
    );
    problems.push(`${left.total} key(s) under ${spec.keyPrefix}: a run refuses to start (${would})`);
  }
}

async function adaptersOf(
  spec: TargetSpec,
  nodes: string[],
  problems: string[],
  out: (line: string) => void,
): Promise<void> {
  const names = Object.keys(spec.adapters);
  out(names.length ? 'adapters' : 'adapters: none (server faults are refused)');
  for (const name of names) {
    const adapter = createAdapter(spec.adapters[name], new CommandLog(null), 'check');
    const found = await adapter.preflight(nodes);
    problems.push(...found);
    out(
      `  ${name} (${adapter.spec.type}; can ${adapter.actions.join(', ')}): ${found.length ? `✗ ${found.join('; ')}` : '✓ preflight'}`,
    );
  }
}

/** Which faults a run against this target can use, and why not the others. */
function faultTable(spec: TargetSpec, out: (line: string) => void): void {
  const client: string[] = [];
  const server: string[] = [];
  for (const f of FAULT_NAMES as readonly FaultName[]) {
    const { onTarget, clientProxies, ownClientRoutes } = EXECUTORS[f].needs;
    if (onTarget === undefined) {
      const bypassed = (clientProxies || ownClientRoutes) && spec.redis && spec.redis.mode !== 'standalone';
      client.push(bypassed ? `${f} ✗ (a Redis ${spec.redis!.mode} client goes around the proxies)` : `${f} ✓`);
    } else if (typeof onTarget === 'string') server.push(`${f} ✗ (${onTarget})`);
    else {
      const name = spec.serverFaults[f];
      const adapter = name ? createAdapter(spec.adapters[name], new CommandLog(null), 'check') : null;
      const can = adapter && [onTarget.adapter, HEAL_OF[onTarget.adapter]].every((a) => adapter.actions.includes(a));
      server.push(
        !name
          ? `${f} ✗ (no adapter: add "serverFaults": { "${f}": "<adapter>" })`
          : can
            ? `${f} ✓ via ${name}`
            : `${f} ✗ (adapter ${name} cannot ${onTarget.adapter} and ${HEAL_OF[onTarget.adapter]})`,
      );
    }
  }
  out('faults');
  out(`  on the clients and fencepost's proxies (unchanged): ${client.join(', ')}`);
  out('  on the servers:');
  for (const s of server) out(`    ${s}`);
}

async function healthOnce(spec: TargetSpec, problems: string[], out: (line: string) => void): Promise<void> {
  const { abort, health } = spec;
  out(
    `abort conditions: ${health ? `health probe failing ${health.failures}× (every ${health.intervalMs} ms), ` : ''}${abort.maxErrorRate !== null ? `more than ${Math.round(abort.maxErrorRate * 100)} % of operations unknown, ` : ''}${abort.maxMinutes} min at most`,
  );
  if (!health) return;
  const r = await probeHealth(health, new CommandLog(null));
  const line = `  health probe ${healthPlan(health).command}`;
  if (r.ok) out(`${line}: ✓ exit 0`);
  else {
    out(`${line}: ✗ ${r.said}`);
    problems.push('the health probe fails now: a run would abort at once');
  }
}

function commandsAndKeys(spec: TargetSpec, out: (line: string) => void): void {
  const servers = lockEndpoints(spec, {
    redis: spec.redis?.endpoints.length ?? 0,
    etcd: spec.etcd?.endpoints.length ?? 0,
  });
  const planned = plannedCommands(spec, FAULT_NAMES as readonly FaultName[], servers);
  out(
    `keys a run touches: only its own, under ${spec.keyPrefix}run-<id>/ (recorded in ${spec.keyPrefix}fencepost-owned:run-<id> before the lock creates them, removed at the end), and outside the prefix one read, write and delete of a random key (this fence proof)`,
  );
  out(
    planned.length
      ? 'commands a run may execute on the target, with every server fault the file names:'
      : 'commands a run may execute on the target: none',
  );
  for (const { fault, planned: p } of planned) out(`  # ${fault}: ${p.action} ${p.node}\n  $ ${p.command}`);
}
