import { createCluster, hostRequirements } from '../cluster/create-cluster.ts';
import { FULL_CLUSTER, type ClusterSpec } from '../cluster/cluster.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { claimRun } from '../common/run-owner.ts';
import { provision } from '../cluster/provision.ts';
import { foreignLibraries } from '../locks/registry.ts';
import { createRunDir, runPath, writeJson } from '../store/run-dir.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { retireCluster } from './retire-cluster.ts';
import { formatOptional, optionalServers, type OptionalServer } from '../cluster/optional-servers.ts';

/** What `fencepost doctor` is run with (cli/commands/doctor.ts parses it). */
export interface DoctorConfig {
  readonly command: 'doctor';
  readonly help: boolean;
  readonly backend: 'local' | 'docker';
  readonly resultsDir: string;
  readonly json: boolean;
}

export interface DoctorRow {
  node: string;
  port: number;
  version: string;
  readyInMs: number | null;
}

export interface DoctorReport {
  ok: boolean;
  bootMs: number;
  nodes: DoctorRow[];
  /** Servers only an option needs (valkey-server): there or not, never installed by doctor. */
  optional: OptionalServer[];
  runDir: string;
}

const DOCTOR_CLUSTER: ClusterSpec = { ...FULL_CLUSTER, pgbouncer: { poolMode: 'transaction', waitTimeoutMs: 2000 } };

/** Boot all 13 nodes, call each once, tear down. Its boot time is what `bench startup` measures. */
export async function doctor(config: Readonly<DoctorConfig>, shutdown: Shutdown): Promise<DoctorReport> {
  const log = (line: string) => {
    if (!config.json) console.error(line);
  };
  // The servers, and the real lock libraries the built-in foreign rows run in the clients (on this host).
  await provision(
    [
      ...hostRequirements(config.backend, ['redis', 'etcd', 'zk', 'pg', 'pgbouncer', 'cc'] as const),
      ...foreignLibraries(),
    ],
    log,
    shutdown,
  );
  const runDir = createRunDir(config.resultsDir, 'doctor');
  const pids = new PidRegistry(runPath(runDir, 'pids'));
  claimRun(pids.dir);
  // Every server a run may start, the pooler in front of Postgres too (its pool mode matters nothing here).
  const cluster = await createCluster(config.backend, DOCTOR_CLUSTER, runDir, pids, log);
  const stopCluster = shutdown.add('stop cluster', () => retireCluster(cluster, runDir));
  log(`fencepost doctor: booting ${cluster.nodes.length} nodes (--backend=${config.backend}) under ${runDir} …`);
  const t0 = performance.now();
  try {
    await cluster.start();
    const bootMs = Math.round(performance.now() - t0);
    const nodes = await Promise.all(
      cluster.nodes.map(async (n) => ({
        node: n.name,
        port: n.port,
        version: await n.version(),
        readyInMs: n.readyInMs,
      })),
    );
    const report = { ok: true, bootMs, nodes, optional: optionalServers(), runDir };
    writeJson(runPath(runDir, 'doctor'), report);
    return report;
  } finally {
    await stopCluster.run();
  }
}

export function formatDoctor(r: DoctorReport): string {
  const lines = ['node           port   version     ready in', '-------------  -----  ----------  --------'];
  for (const n of r.nodes)
    lines.push(
      `${n.node.padEnd(13)}  ${String(n.port).padEnd(5)}  ${n.version.padEnd(10)}  ${String(n.readyInMs ?? '-').padStart(5)} ms`,
    );
  lines.push(
    '',
    ...formatOptional(r.optional),
    `all ${r.nodes.length} nodes ready in ${r.bootMs} ms (boot in parallel); torn down. Logs: ${runPath(r.runDir, 'logs')}`,
  );
  return lines.join('\n');
}
