import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FULL_CLUSTER } from '../harness/backends/cluster.ts';
import { createLocalCluster } from '../harness/backends/local/cluster.ts';
import { PidRegistry } from '../harness/pid-registry.ts';
import { provision } from '../harness/provision.ts';

/**
 * `npm run bench -- boot [rounds]`: full-cluster boot time (5 Redis, 3 etcd, 3 ZooKeeper, Postgres, all in
 * parallel, each until its first real client call succeeds) over several rounds. Goal: < 5 s.
 */
export async function run(args: string[]): Promise<void> {
  const rounds = Number(args[0] ?? 5);
  await provision(['redis', 'etcd', 'zk', 'pg']);
  const totals: number[] = [];
  const perKind = new Map<string, number[]>();
  for (let i = 0; i < rounds; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-boot-'));
    const cluster = await createLocalCluster(FULL_CLUSTER, dir, new PidRegistry(path.join(dir, 'pids')));
    const t0 = performance.now();
    try {
      await cluster.start();
      totals.push(performance.now() - t0);
      for (const n of cluster.nodes) {
        const list = perKind.get(n.kind) ?? [];
        list.push(n.readyInMs ?? NaN);
        perKind.set(n.kind, list);
      }
    } finally {
      await cluster.teardown();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const stat = (xs: number[]) => {
    const s = sorted(xs);
    return { min: Math.round(s[0]), median: Math.round(s[Math.floor(s.length / 2)]), max: Math.round(s[s.length - 1]) };
  };
  const result = {
    benchmark: 'boot',
    rounds,
    cpus: os.cpus().length,
    totalMs: stat(totals),
    goalMs: 5000,
    metGoal: sorted(totals)[Math.floor(totals.length / 2)] < 5000,
    readyMsByKind: Object.fromEntries([...perKind].map(([k, v]) => [k, stat(v)])),
  };
  console.log(`full cluster (12 nodes) boot over ${rounds} rounds on ${result.cpus} cores`);
  console.log(`  total   min ${result.totalMs.min} ms   median ${result.totalMs.median} ms   max ${result.totalMs.max} ms   (goal < 5000 ms: ${result.metGoal ? 'met' : 'NOT met'})`);
  for (const [k, s] of Object.entries(result.readyMsByKind)) console.log(`  ${k.padEnd(6)}  min ${s.min} ms   median ${s.median} ms   max ${s.max} ms`);
  console.log(JSON.stringify(result));
}
