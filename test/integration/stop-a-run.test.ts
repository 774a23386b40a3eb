import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { processesUnder, recordedProcessesUnder, testResultsDir } from './processes.ts';

// How a run is stopped from outside: through npm as a supervisor or CI runner does it, by its parent's death,
// and `cleanup` from another terminal while it runs (which must not touch it).
const CLI = path.resolve('cli.ts');
const dirs: string[] = [];

function resultsDir(name: string): string {
  const dir = testResultsDir(name);
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const p of dirs.flatMap(processesUnder)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Spawned in its own process group, as a job runner starts a command; output collected. */
function start(file: string, args: string[]): Started {
  const child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Until the clients are running: the run's history has ops from them. */
async function runningClients(results: string, lock: string, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const base = path.join(results, lock);
    for (const run of fs.existsSync(base) ? fs.readdirSync(base) : []) {
      const history = path.join(base, run, 'history.jsonl');
      if (fs.existsSync(history) && fs.readFileSync(history, 'utf8').split('\n').filter(Boolean).length >= 10)
        return path.join(base, run);
    }
    await sleep(100);
  }
  throw new Error(`no run with client ops under ${results} after ${timeoutMs} ms`);
}

/** Seconds from now until no process of the results folder is left (or the deadline). */
async function secondsUntilNoneLeft(results: string, deadlineMs = 30_000): Promise<number> {
  const t0 = performance.now();
  while (processesUnder(results).length > 0 && performance.now() - t0 < deadlineMs) await sleep(50);
  return (performance.now() - t0) / 1000;
}

function expectInterrupted(runDir: string): void {
  const history = fs.readFileSync(path.join(runDir, 'history.jsonl'), 'utf8').trim().split('\n');
  expect(history.length).toBeGreaterThanOrEqual(10);
  expect(JSON.parse(fs.readFileSync(path.join(runDir, 'test.json'), 'utf8')).interrupted).toBe(true);
  expect(fs.readdirSync(path.join(runDir, 'pids')).filter((f) => f.endsWith('.json'))).toEqual([]);
}

describe('stopping a run from outside', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to npm itself (`npm run jepsen`) stops the harness, its servers and clients, and keeps the history',
    async (signal) => {
      const results = resultsDir(`stop-npm-${signal}`);
      const run = start('npm', [
        'run',
        'jepsen',
        '--',
        '--lock=redis',
        '--nemesis=none',
        '--time-limit=60',
        `--results=${results}`,
      ]);
      const runDir = await runningClients(results, 'redis');
      await sleep(3000);
      // By the run's pid files (5 redis, postgres and its backends, clients), not its folder: under a 0700 checkout
      // the servers' homes are in the OS temp folder.
      expect(recordedProcessesUnder(results).length).toBeGreaterThan(6);
      process.kill(run.child.pid!, signal); // npm's own pid, not its group
      const seconds = await secondsUntilNoneLeft(results);
      console.log(`${signal} to npm: last process of the run gone after ${seconds.toFixed(2)} s`);
      expect(processesUnder(results)).toEqual([]);
      expect(seconds).toBeLessThan(20);
      await run.exited;
      expect(run.stderr()).toContain(`${signal} — resuming paused processes`);
      expectInterrupted(runDir);
    },
  );

  it('the death of its parent (a wrapper shell SIGKILLed) makes the harness shut down as on SIGTERM', async () => {
    const results = resultsDir('stop-parent-gone');
    // `sh -c` without exec keeps the shell as the harness's parent, as npm's script shell did.
    const run = start('sh', [
      '-c',
      `${process.execPath} --import tsx ${CLI} --lock=redis --nemesis=none --time-limit=60 --results=${results}; true`,
    ]);
    const runDir = await runningClients(results, 'redis');
    expect(recordedProcessesUnder(results).length).toBeGreaterThan(0);
    process.kill(run.child.pid!, 'SIGKILL');
    const seconds = await secondsUntilNoneLeft(results);
    console.log(`parent SIGKILLed: last process of the run gone after ${seconds.toFixed(2)} s`);
    expect(processesUnder(results)).toEqual([]);
    expect(seconds).toBeLessThan(20);
    expect(run.stderr()).toMatch(/parent process \d+ is gone — resuming paused processes/);
    expectInterrupted(runDir);
  });

  it('cleanup from another process while a run is going leaves it untouched; the run ends with its verdict', async () => {
    const results = resultsDir('cleanup-during-run');
    const run = start(process.execPath, [
      '--import',
      'tsx',
      CLI,
      '--lock=redis',
      '--nemesis=none',
      '--time-limit=8',
      `--results=${results}`,
    ]);
    const runDir = await runningClients(results, 'redis');
    const before = processesUnder(results)
      .map((p) => p.pid)
      .sort();
    expect(recordedProcessesUnder(results).length).toBeGreaterThan(0);
    const cleanup = start(process.execPath, ['--import', 'tsx', CLI, 'cleanup', `--results=${results}`]);
    expect(await cleanup.exited).toBe(0);
    expect(cleanup.stdout()).toContain(`running, left alone: ${runDir} (its harness, pid ${run.child.pid}, is alive)`);
    expect(cleanup.stdout()).not.toMatch(/stopped/);
    const after = processesUnder(results).map((p) => p.pid);
    for (const pid of before) expect(after).toContain(pid);
    const code = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(run.stdout()).toMatch(/^\s*VALID\s+--lock=redis/);
    const test = JSON.parse(fs.readFileSync(path.join(runDir, 'test.json'), 'utf8'));
    expect(test.interrupted).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(path.join(runDir, 'results.json'), 'utf8')).valid).toBe(true);
    expect(processesUnder(results)).toEqual([]);
  });
});
