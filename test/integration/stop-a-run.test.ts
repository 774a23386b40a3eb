import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesUnder, recordedProcessesUnder, testResultsDir } from './processes.ts';
import { startCli } from '../support/cli-run.ts';
import { eventually } from '../support/eventually.ts';

// How a run is stopped from outside: through npm as a supervisor or CI runner does it, by its parent's death; and
// what must not stop it: `cleanup` from another terminal while it runs, a reader that goes away. Each run is started
// in its own process group (detached), as a job runner starts a command.

/** Until the clients are running: the run's history has ops from them. */
async function runningClients(results: string, lock: string, timeoutMs = 90_000): Promise<string> {
  const base = path.join(results, lock);
  const withOps = () =>
    (fs.existsSync(base) ? fs.readdirSync(base) : [])
      .map((run) => path.join(base, run))
      .find((run) => {
        const history = path.join(run, 'history.jsonl');
        return fs.existsSync(history) && fs.readFileSync(history, 'utf8').split('\n').filter(Boolean).length >= 10;
      });
  return eventually(`a run with client ops under ${results}`, withOps, timeoutMs);
}

/**
 * Until the run's history holds what a VALID needs (--min-writes' default, 10 committed writes, by at least two
 * clients): from then on only a disturbance could take its VALID away.
 */
async function validEarned(runDir: string, timeoutMs = 60_000): Promise<void> {
  const earned = () => {
    const writes = fs
      .readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"ok","f":"write"'))
      .map((l) => (JSON.parse(l) as { process: number }).process);
    return writes.length >= 10 && new Set(writes).size >= 2;
  };
  await eventually('10 committed writes by two clients', earned, timeoutMs);
}

/** Seconds from now until no process of the results folder is left (or the deadline). */
async function secondsUntilNoneLeft(results: string, deadlineMs = 30_000): Promise<number> {
  const t0 = performance.now();
  await eventually('no process of the run left', () => processesUnder(results).length === 0, deadlineMs, 50).catch(
    () => {},
  );
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
      const results = testResultsDir(`stop-npm-${signal}`);
      const run = startCli(['--lock=redis', '--nemesis=none', '--time-limit=60'], {
        results,
        via: 'npm',
        detached: true,
      });
      const runDir = await runningClients(results, 'redis');
      // By the run's pid files (5 redis, postgres and its backends, clients), not its folder: under a 0700 checkout
      // the servers' homes are in the OS temp folder. The run is fully up once they are all there.
      const recorded = () => recordedProcessesUnder(results).length;
      await eventually('more than 6 live processes in the pid files', () => recorded() > 6, 60_000).catch(() => {});
      expect(recorded()).toBeGreaterThan(6);
      process.kill(run.pid, signal); // npm's own pid, not its group
      const seconds = await secondsUntilNoneLeft(results);
      console.log(`${signal} to npm: last process of the run gone after ${seconds.toFixed(2)} s`);
      expect(processesUnder(results)).toEqual([]);
      expect(seconds).toBeLessThan(20);
      await run.exit;
      expect(run.stderr).toContain(`${signal} — resuming paused processes`);
      expectInterrupted(runDir);
    },
  );

  it('the death of its parent (a wrapper shell SIGKILLed) makes the harness shut down as on SIGTERM', async () => {
    const results = testResultsDir('stop-parent-gone');
    // `sh -c` without exec keeps the shell as the harness's parent, as npm's script shell did.
    const run = startCli(['--lock=redis', '--nemesis=none', '--time-limit=60'], { results, via: 'sh', detached: true });
    const runDir = await runningClients(results, 'redis');
    expect(recordedProcessesUnder(results).length).toBeGreaterThan(0);
    process.kill(run.pid, 'SIGKILL'); // the shell alone
    const seconds = await secondsUntilNoneLeft(results);
    console.log(`parent SIGKILLed: last process of the run gone after ${seconds.toFixed(2)} s`);
    expect(processesUnder(results)).toEqual([]);
    expect(seconds).toBeLessThan(20);
    expect(run.stderr).toMatch(/parent process \d+ is gone — resuming paused processes/);
    expectInterrupted(runDir);
  });

  // One run shows two things (they were two runs): nothing from outside but its own end stops it, neither its reader
  // going away nor a cleanup from another terminal.
  it('a reader that goes away (`| head`) and cleanup from another process leave a run untouched: it ends with its verdict', async () => {
    const results = testResultsDir('untouched-run');
    // 8 s: the run must outlive the cleanup process (a node start, ~1.5 s alone, 3-4 s on two busy cores) started once
    // it has earned its VALID; "running, left alone" below fails, never passes, if it ends first. SIGKILL after 2 min:
    // before the fix every write to a gone reader failed with EPIPE, the crash report failed the same way, and the
    // harness spun at full CPU with its servers up, never exiting.
    const run = startCli(['--lock=redis', '--nemesis=none', '--time-limit=8'], {
      results,
      detached: true,
      timeoutMs: 120_000,
      killSignal: 'SIGKILL',
    });
    await run.line(/run dir/);
    // Its reader is gone before anything else is printed: the progress, the summary and the report path all hit EPIPE.
    run.child.stdout!.destroy();
    run.child.stderr!.destroy();
    const runDir = await runningClients(results, 'redis');
    await validEarned(runDir);
    const before = processesUnder(results)
      .map((p) => p.pid)
      .sort();
    expect(recordedProcessesUnder(results).length).toBeGreaterThan(0);
    const t0 = performance.now();
    const cleanup = startCli(['cleanup'], { results, detached: true });
    expect((await cleanup.exit).code).toBe(0);
    console.log(`cleanup took ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    expect(cleanup.stdout).toContain(`running, left alone: ${runDir} (its harness, pid ${run.pid}, is alive)`);
    expect(cleanup.stdout).not.toMatch(/stopped/);
    const after = processesUnder(results).map((p) => p.pid);
    for (const pid of before) expect(after).toContain(pid);
    const { code, signal } = await run.exit;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    const test = JSON.parse(fs.readFileSync(path.join(runDir, 'test.json'), 'utf8'));
    expect(test.interrupted).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(path.join(runDir, 'results.json'), 'utf8')).valid).toBe(true);
    expect(processesUnder(results)).toEqual([]);
  });
});
