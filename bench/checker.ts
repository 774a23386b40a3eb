import { fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkRun } from '../checkers/check-run.ts';
import { parseEdnHistory } from '../checkers/edn-history.ts';
import { checkLinearizable, type LinearizableResult } from '../checkers/linearizable.ts';
import { historyModel } from '../checkers/models/registry.ts';
import { generateBankHistory } from '../test/support/memory-bank.ts';

/**
 * `npm run bench -- checker [--sizes=1000,10000,100000] [--processes=5,10,20] [--json=<file>]`
 *
 * Checks generated bank histories (valid ones, and ones with a broken lock that loses updates) with the full
 * `checkRun`, each in a child process of its own so its peak memory is its own. Goal: a 100k-op history with
 * 10 processes checked in < 5 s. Then the Knossos corpus through the cas-register and mutex models.
 */

interface Case {
  /** History entries (each op is an invoke and a completion). */
  ops: number;
  processes: number;
  accounts: number;
  kind: 'valid' | 'lost-updates';
  seed: number;
}

interface Measurement extends Case {
  entries: number;
  accountOps: number;
  checkMs: number;
  entriesPerSec: number;
  linearizableMs: number;
  explored: number;
  valid: unknown;
  lostUpdates: number;
  brokenGrants: number;
  /** Peak resident set of the child process (history generation included). */
  peakRssMB: number;
  /** JS heap in use right after the check, before any GC: live data plus the check's garbage. */
  heapAfterCheckMB: number;
  /** JS heap in use before the check, after a GC: the generated history itself. */
  heapBeforeCheckMB: number;
}

const CHILD_FLAG = '--checker-bench-case=';
const MB = 1024 * 1024;

export async function run(args: string[]): Promise<void> {
  const opt = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const sizes = (opt('sizes') ?? '1000,10000,100000').split(',').map(Number);
  const processes = (opt('processes') ?? '5,10,20').split(',').map(Number);
  const cases: Case[] = [];
  for (const ops of sizes) {
    for (const p of processes) {
      for (const kind of ['valid', 'lost-updates'] as const) cases.push({ ops, processes: p, accounts: 1, kind, seed: 42 });
    }
  }

  const results: Measurement[] = [];
  for (const c of cases) {
    const m = await measureInChild(c);
    results.push(m);
    console.log(row(m));
  }
  console.log(`\n${table(results)}`);

  const corpus = knossosCorpus();
  if (corpus) console.log(`\nKnossos corpus: ${corpus.histories} histories, all verdicts right: ${corpus.allRight}, total ${corpus.totalMs.toFixed(0)} ms, slowest ${corpus.slowest.file} ${corpus.slowest.ms.toFixed(1)} ms`);

  const json = JSON.stringify({ bench: 'checker', node: process.version, cases: results, knossos: corpus ?? null }, null, 2);
  const out = opt('json');
  if (out) {
    writeFileSync(out, json + '\n');
    console.log(`\nwrote ${out}`);
  } else console.log(`\n${json}`);
}

function measureInChild(c: Case): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG + JSON.stringify(c)], {
      execArgv: ['--import', 'tsx', '--expose-gc', '--max-old-space-size=4096'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: Measurement | undefined;
    child.on('message', (m) => (result = m as Measurement));
    child.on('error', reject);
    child.on('exit', (code) => (result ? resolve(result) : reject(new Error(`bench case ${JSON.stringify(c)} exited ${code} without a result`))));
  });
}

async function measure(c: Case): Promise<Measurement> {
  const { history, brokenGrants } = await generateBankHistory({
    ops: c.ops,
    processes: c.processes,
    accounts: c.accounts,
    seed: c.seed,
    brokenLockRate: c.kind === 'lost-updates' ? 0.01 : 0,
    infoRate: 0.001,
  });
  (globalThis as { gc?: () => void }).gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const results = checkRun(history, { fencing: false });
  const checkMs = performance.now() - started;
  const heapAfter = process.memoryUsage().heapUsed;
  const lin = results.checkers.linearizable as LinearizableResult;
  return {
    ...c,
    entries: history.length,
    accountOps: lin.operations,
    checkMs,
    entriesPerSec: history.length / (checkMs / 1000),
    linearizableMs: lin.elapsedMs,
    explored: lin.explored,
    valid: results.valid,
    lostUpdates: results.lostUpdates,
    brokenGrants,
    peakRssMB: (process.resourceUsage().maxRSS * 1024) / MB,
    heapAfterCheckMB: heapAfter / MB,
    heapBeforeCheckMB: heapBefore / MB,
  };
}

function row(m: Measurement): string {
  return [
    String(m.ops).padStart(7),
    String(m.processes).padStart(5),
    m.kind.padEnd(13),
    String(m.entries).padStart(8),
    String(m.accountOps).padStart(7),
    m.checkMs.toFixed(0).padStart(8),
    Math.round(m.entriesPerSec).toString().padStart(10),
    m.linearizableMs.toFixed(0).padStart(7),
    String(m.explored).padStart(9),
    String(m.valid).padStart(6),
    String(m.lostUpdates).padStart(5),
    m.peakRssMB.toFixed(0).padStart(8),
    m.heapAfterCheckMB.toFixed(0).padStart(9),
  ].join(' ');
}

function table(ms: Measurement[]): string {
  const header = [
    'ops'.padStart(7),
    'procs'.padStart(5),
    'history'.padEnd(13),
    'entries'.padStart(8),
    'acctOps'.padStart(7),
    'check ms'.padStart(8),
    'entries/s'.padStart(10),
    'lin ms'.padStart(7),
    'explored'.padStart(9),
    'valid'.padStart(6),
    'lost'.padStart(5),
    'peak RSS'.padStart(8),
    'heap (MB)'.padStart(9),
  ].join(' ');
  return [header, ...ms.map(row)].join('\n');
}

function knossosCorpus(): { histories: number; allRight: boolean; totalMs: number; slowest: { file: string; ms: number } } | undefined {
  const root = fileURLToPath(new URL('../test/corpus/knossos', import.meta.url));
  if (!existsSync(root)) {
    console.log(`\n(Knossos corpus not found at ${root}; skipped)`);
    return undefined;
  }
  const sets = [
    ['cas-register', 'cas-register/good', true],
    ['cas-register', 'cas-register/bad', false],
    ['mutex', 'mutex/bad', false],
  ] as const;
  let histories = 0;
  let allRight = true;
  let totalMs = 0;
  let slowest = { file: '', ms: 0 };
  for (const [model, dir, expected] of sets) {
    for (const f of readdirSync(path.join(root, dir)).filter((x) => x.endsWith('.edn'))) {
      const file = path.join(dir, f);
      const started = performance.now();
      const { model: m, ops } = historyModel(model)!.build(parseEdnHistory(readFileSync(path.join(root, file), 'utf8')), {});
      const verdict = checkLinearizable(m, ops, { deadlineMs: 60_000 }).valid;
      const ms = performance.now() - started;
      histories++;
      totalMs += ms;
      if (verdict !== expected) allRight = false;
      if (ms > slowest.ms) slowest = { file, ms };
    }
  }
  return { histories, allRight, totalMs, slowest };
}

const childArg = process.argv.find((a) => a.startsWith(CHILD_FLAG));
if (childArg) {
  const m = await measure(JSON.parse(childArg.slice(CHILD_FLAG.length)) as Case);
  process.send!(m, () => process.exit(0));
}
