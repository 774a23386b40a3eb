import { spawn } from 'node:child_process';
import { benchArgs } from './bench-args.ts';
import type { OptionSpec } from '../harness/option-table.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FULL_CLUSTER } from '../cluster/cluster.ts';
import { createCluster, type Backend } from '../cluster/create-cluster.ts';
import { findDockerEngine, engineAddress } from '../cluster/docker/engine.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { provision } from '../cluster/provision.ts';
import { runPath } from '../store/run-dir.ts';
import type { BenchOutcome, Goal } from './outcome.ts';

/**
 * `npm run bench -- startup [--rounds=3] [--only=boot|first-op]`
 *
 * 1. Full-cluster boot (5 Redis, 3 etcd, 3 ZooKeeper, Postgres, in parallel, each until a real client call
 *    succeeds), local backend, and the Docker backend when an engine answers (skipped with a message otherwise).
 *    Goal: local median < 5 s. Docker has the same goal: same servers, same host network, containers add only
 *    their own start.
 * 2. Time to first op: from spawning `node --import tsx cli.ts --lock=redlock --nemesis=none
 *    --time-limit=3` to the moment its history holds its first op. Both ends are on this process's
 *    monotonic clock: t0 is taken just before spawn(); the history file is polled every 10 ms, and the journal
 *    flushes each op as it is appended, so the figure is late by at most ~10 ms. (The history's own `time` field
 *    can't be used: it counts from the journal's creation, after boot.) Goal: < 6 s — boot (5 s) plus 1 s for Node
 *    start-up, the proxies, the resource tables and forking the clients.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BOOT_GOAL_MS = 5000;
const FIRST_OP_GOAL_MS = 6000;

const OPTIONS = [
  { name: 'rounds', kind: 'int', min: 1, default: 3, help: 'boots measured (the median is the figure)' },
  { name: 'only', kind: 'enum', choices: ['boot', 'first-op'], help: 'one of the two measurements' },
] as const satisfies readonly OptionSpec[];

export async function run(args: string[]): Promise<BenchOutcome> {
  const o = benchArgs('startup', args, OPTIONS);
  const rounds = o.rounds;
  const only = o.only;
  await provision(['redis', 'etcd', 'zk', 'pg']);
  const goals: Goal[] = [];
  const data: Record<string, unknown> = { rounds };

  if (only !== 'first-op') {
    const local = await bootRounds('local', rounds);
    data.localBoot = local;
    goals.push({
      what: `local full-cluster boot, median of ${rounds}`,
      goal: `< ${BOOT_GOAL_MS} ms`,
      measured: `${local.totalMs.median} ms`,
      met: local.totalMs.median < BOOT_GOAL_MS,
    });
    const docker = await findDockerEngine();
    if (!docker) {
      console.log(
        `\ndocker boot: skipped, no Docker engine answers at ${engineAddress()} (see docs/cli.md#the-docker-backend)`,
      );
      goals.push({
        what: 'docker full-cluster boot',
        goal: `< ${BOOT_GOAL_MS} ms`,
        measured: '-',
        met: 'skipped',
        why: 'no Docker engine',
      });
    } else {
      const d = await bootRounds('docker', rounds);
      data.dockerBoot = d;
      goals.push({
        what: `docker full-cluster boot, median of ${rounds}`,
        goal: `< ${BOOT_GOAL_MS} ms`,
        measured: `${d.totalMs.median} ms`,
        met: d.totalMs.median < BOOT_GOAL_MS,
      });
    }
  }
  if (only !== 'boot') {
    const runs: FirstOp[] = [];
    for (let i = 0; i < rounds; i++) {
      const r = await timeToFirstOp();
      runs.push(r);
      console.log(
        `first op: run ${i + 1}/${rounds}: harness started its cluster at ${r.runDirAtMs ?? '?'} ms, nodes ready at ${r.readyAtMs ?? '?'} ms ` +
          `(boot ${r.bootMs ?? '?'} ms), first op at ${r.firstOpMs} ms; exited ${r.exitCode} at ${r.exitMs} ms`,
      );
    }
    const median = medianOf(runs.map((r) => r.firstOpMs));
    data.firstOp = runs;
    goals.push({
      what: `spawn → first history op (redlock, --time-limit=3), median of ${rounds}`,
      goal: `< ${FIRST_OP_GOAL_MS} ms`,
      measured: `${median} ms`,
      met: median < FIRST_OP_GOAL_MS,
    });
  }
  return { benchmark: 'startup', goals, data };
}

interface Stat {
  min: number;
  median: number;
  max: number;
}

async function bootRounds(
  backend: Backend,
  rounds: number,
): Promise<{ backend: Backend; totalMs: Stat; readyMsByKind: Record<string, Stat> }> {
  const totals: number[] = [];
  const perKind = new Map<string, number[]>();
  for (let i = 0; i < rounds; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `fencepost-bench-boot-${backend}-`));
    // Image checks and engine connection happen here, outside the timed part: the goal is about booting nodes.
    const cluster = await createCluster(backend, FULL_CLUSTER, dir, new PidRegistry(runPath(dir, 'pids')), (l) =>
      console.error(l),
    );
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
  const result = {
    backend,
    totalMs: stat(totals),
    readyMsByKind: Object.fromEntries([...perKind].map(([k, v]) => [k, stat(v)])),
  };
  console.log(`\n${backend} full cluster (12 nodes) boot over ${rounds} round(s) on ${os.cpus().length} cores`);
  console.log(
    `  total   min ${result.totalMs.min} ms   median ${result.totalMs.median} ms   max ${result.totalMs.max} ms`,
  );
  for (const [k, s] of Object.entries(result.readyMsByKind))
    console.log(`  ${k.padEnd(6)}  min ${s.min} ms   median ${s.median} ms   max ${s.max} ms`);
  return result;
}

interface FirstOp {
  firstOpMs: number;
  /** What the harness logged as its cluster boot ("nodes ready in N ms"), for the breakdown. */
  bootMs: number | null;
  /** Since spawn: the harness's "run dir" line (Node + tsx start, options, provisioning checks done) and its "nodes ready" line. */
  runDirAtMs: number | null;
  readyAtMs: number | null;
  exitMs: number;
  exitCode: number | null;
  firstOp: string;
}

async function timeToFirstOp(): Promise<FirstOp> {
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-first-op-'));
  const argv = [
    '--import',
    'tsx',
    'cli.ts',
    '--lock=redlock',
    '--nemesis=none',
    '--time-limit=3',
    `--results=${results}`,
  ];
  try {
    const t0 = performance.now();
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    // When the harness says it is about to boot ("run dir …") and that boot is done ("nodes ready"): the phases.
    let runDirAtMs: number | null = null;
    let readyAtMs: number | null = null;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      runDirAtMs ??= /; run dir /.test(stderr) ? Math.round(performance.now() - t0) : null;
      readyAtMs ??= /nodes ready in \d+ ms/.test(stderr) ? Math.round(performance.now() - t0) : null;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let firstOpMs: number | null = null;
    let firstOp = '';
    let exitCode: number | null | undefined;
    void exited.then((c) => (exitCode = c));
    while (firstOpMs === null && exitCode === undefined) {
      const line = firstHistoryLine(results);
      if (line) {
        firstOpMs = Math.round(performance.now() - t0);
        firstOp = line;
      } else await new Promise((r) => setTimeout(r, 10));
    }
    const code = await exited;
    const exitMs = Math.round(performance.now() - t0);
    if (firstOpMs === null)
      throw new Error(`the harness exited ${code} without writing a history op; its stderr:\n${stderr.slice(-2000)}`);
    const boot = /nodes ready in (\d+) ms/.exec(stderr);
    return { firstOpMs, bootMs: boot ? Number(boot[1]) : null, runDirAtMs, readyAtMs, exitMs, exitCode: code, firstOp };
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
  }
}

/** The first complete line of the history of a run under results/redlock/, if there is one yet. */
function firstHistoryLine(results: string): string | null {
  const lockDir = path.join(results, 'redlock');
  if (!fs.existsSync(lockDir)) return null;
  for (const run of fs.readdirSync(lockDir)) {
    const file = runPath(path.join(lockDir, run), 'history');
    if (!fs.existsSync(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    const nl = text.indexOf('\n');
    if (nl > 0) return text.slice(0, nl);
  }
  return null;
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]);
}

function stat(xs: number[]): Stat {
  const s = [...xs].sort((a, b) => a - b);
  return { min: Math.round(s[0]), median: medianOf(s), max: Math.round(s[s.length - 1]) };
}
