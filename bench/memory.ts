import { spawn } from 'node:child_process';
import { benchArgs } from './bench-args.ts';
import type { OptionSpec } from '../harness/option-table.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOutcome, Goal } from './outcome.ts';
import { readHistoryTolerant } from '../history/reader.ts';
import { runPath } from '../store/run-dir.ts';

/**
 * `npm run bench -- memory [--time-limit=60] [--lock=redlock]`
 *
 * Peak resident memory of the harness and of its client processes during `--concurrency=10 --accounts=10
 * --nemesis=none` for --time-limit seconds. Peak = VmHWM (the kernel's high-water mark of the resident set) from
 * /proc/<pid>/status, read every 200 ms until the process exits; the last reading before exit is kept, so growth
 * in the final 200 ms can be missed. Clients are the harness's children running workloads/client.ts.
 *
 * Goals: harness < 400 MB, each client < 200 MB. Why: a Node 20 process running TypeScript through tsx is
 * already ~100 MB resident (a client measured 97–104 MB); the harness also holds the history it checks at the
 * end (~22 k ops in a 60 s run here; a faster machine makes more) plus the checker's memo cache, and a client
 * holds its strategy's connections and little else. 400 + 10 × 200 MB = 2.4 GB is what a 2-core CI runner with
 * 7 GB can give one run, next to its servers, without swapping; twice the measured peak leaves room for growth.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HARNESS_GOAL_MB = 400;
const CLIENT_GOAL_MB = 200;

const OPTIONS = [
  { name: 'time-limit', kind: 'int', value: 's', min: 1, default: 60, help: "the run's --time-limit" },
  { name: 'lock', kind: 'string', default: 'redlock', help: 'the lock to run (any --lock value)' },
] as const satisfies readonly OptionSpec[];

export async function run(args: string[]): Promise<BenchOutcome> {
  const o = benchArgs('memory', args, OPTIONS);
  const timeLimitS = o['time-limit'];
  const lock = o.lock;
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-memory-'));
  const argv = [
    '--import',
    'tsx',
    'cli.ts',
    `--lock=${lock}`,
    '--concurrency=10',
    '--accounts=10',
    `--time-limit=${timeLimitS}`,
    '--nemesis=none',
    `--results=${results}`,
  ];
  console.log(`memory: node ${argv.join(' ')}`);
  try {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    let exitCode: number | null | undefined;
    const exited = new Promise<void>((resolve) =>
      child.on('exit', (code) => {
        exitCode = code;
        resolve();
      }),
    );
    const peakKb = new Map<number, { kb: number; role: 'harness' | 'client' }>();
    const harnessPid = child.pid!;
    while (exitCode === undefined) {
      const harness = vmHwmKb(harnessPid);
      if (harness !== null) peakKb.set(harnessPid, { kb: harness, role: 'harness' });
      for (const pid of clientPids(harnessPid)) {
        const kb = vmHwmKb(pid);
        if (kb !== null) peakKb.set(pid, { kb, role: 'client' });
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 200))]);
    }
    const ops = countOps(results);
    const mb = (kb: number) => Math.round(kb / 1024);
    const harnessMb = mb(peakKb.get(harnessPid)?.kb ?? 0);
    const clientsMb = [...peakKb.values()]
      .filter((p) => p.role === 'client')
      .map((p) => mb(p.kb))
      .sort((a, b) => a - b);
    const maxClient = clientsMb.at(-1) ?? 0;
    console.log(
      `memory: harness exited ${exitCode}; history ${ops} ops; peak RSS harness ${harnessMb} MB; clients (${clientsMb.length}) ${clientsMb.join(', ')} MB`,
    );
    if (clientsMb.length === 0 || harnessMb === 0)
      throw new Error(`no memory readings (harness exited ${exitCode}); its output:\n${output.slice(-2000)}`);
    const goals: Goal[] = [
      {
        what: `harness peak RSS (VmHWM), ${timeLimitS} s, 10 clients`,
        goal: `< ${HARNESS_GOAL_MB} MB`,
        measured: `${harnessMb} MB`,
        met: harnessMb < HARNESS_GOAL_MB,
      },
      {
        what: `largest client peak RSS of ${clientsMb.length}`,
        goal: `< ${CLIENT_GOAL_MB} MB`,
        measured: `${maxClient} MB`,
        met: maxClient < CLIENT_GOAL_MB,
      },
    ];
    return { benchmark: 'memory', goals, data: { lock, timeLimitS, exitCode, historyOps: ops, harnessMb, clientsMb } };
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
  }
}

function vmHwmKb(pid: number): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null; // it exited between listing and reading
  }
}

/** Children of the harness that run the client script (servers are its children too, and are not counted). */
function clientPids(harnessPid: number): number[] {
  let children: string;
  try {
    children = fs.readFileSync(`/proc/${harnessPid}/task/${harnessPid}/children`, 'utf8');
  } catch {
    return [];
  }
  return children
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workloads/client.ts');
      } catch {
        return false;
      }
    });
}

function countOps(results: string): number {
  for (const lock of fs.existsSync(results) ? fs.readdirSync(results) : []) {
    const lockDir = path.join(results, lock);
    if (!fs.statSync(lockDir).isDirectory()) continue;
    for (const runDir of fs.readdirSync(lockDir)) {
      const file = runPath(path.join(lockDir, runDir), 'history');
      if (fs.existsSync(file)) return readHistoryTolerant(file).ops.length;
    }
  }
  return 0;
}
