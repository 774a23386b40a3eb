import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../common/pid-registry.ts';
import { killLeftovers, processesUnder, testResultsDir } from '../test/integration/processes.ts';
import { runCli } from '../test/support/cli-run.ts';

/**
 * A lock process that attacks the harness (test/fixtures/hostile-lock/hostile.py; the 2026-12-04 audit's N6-N9,
 * N17, N18) through the real CLI against a real Redis: whatever it writes, the harness's memory, its terminal and the
 * run's logs stay bounded, no step waits for good, nothing it started outlives the command, and no password is
 * printed or left behind.
 */
const HOSTILE = path.resolve('test/fixtures/hostile-lock/hostile.py');
const results = testResultsDir('hostile-lock');
const helpers = path.join(results, 'helpers');
/** A command that hangs is killed by the test after this long, so a regression fails instead of hanging the suite. */
const HANG_MS = 100_000;

afterAll(() => {
  for (const pid of helperPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  expect(killLeftovers(results)).toEqual([]);
});

function helperPids(): number[] {
  return fs.existsSync(helpers) ? fs.readFileSync(helpers, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

function manifest(name: string, command: string[]): string {
  const file = path.join(results, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ name, command, needs: ['redis'], token: 'none', renews: false }));
  return file;
}

const hostile = (mode: string, ...args: string[]) => manifest(mode, ['/usr/bin/python3', HOSTILE, mode, ...args]);

interface Done {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

async function cli(args: string[]): Promise<Done> {
  const t0 = performance.now();
  const r = await runCli(args, { results, timeoutMs: HANG_MS, killSignal: 'SIGKILL' });
  return { ...r, seconds: (performance.now() - t0) / 1000 };
}

const longestLine = (text: string) => Math.max(...text.split('\n').map((l) => l.length));
const runDirOf = (stdout: string) => stdout.match(/logs: (.*)\/logs\)/)?.[1] ?? '';

describe('lock-check of a hostile lock process', () => {
  it('a 64 MiB line with no newline: a protocol violation, nothing long printed, exit 1 (not a crash)', async () => {
    const r = await cli(['lock-check', hostile('hugeline', '64')]);
    expect(r.code, r.stderr.slice(-2000)).toBe(1);
    expect(r.stdout).toMatch(
      /FAIL {2}connect \(process A\): lock process broke the protocol \(a line longer than 1048576 bytes\)/,
    );
    expect(longestLine(r.stdout + r.stderr)).toBeLessThan(1000);
  });

  it('a stderr flood (64 MiB): the transcript keeps the last 50 lines of it, said so, exit 1', async () => {
    const r = await cli(['lock-check', hostile('stderrflood', '64')]);
    expect(r.code, r.stderr.slice(-2000)).toBe(1);
    const stderrLines = r.stdout.split('\n').filter((l) => /^\s+A ! e+$/.test(l));
    expect(stderrLines.length).toBeGreaterThan(0);
    expect(stderrLines.length).toBeLessThanOrEqual(50);
    expect(r.stdout).toMatch(/A ! \(\d+ earlier stderr lines not shown\)/);
    expect(r.stdout.length).toBeLessThan(1 << 20);
  });

  it('a child that keeps its stdout: the check ends, and the child is killed with its tree', async () => {
    const r = await cli(['lock-check', hostile('forker', helpers)]);
    expect(r.signal, 'lock-check hung and was killed by the test').toBeNull();
    expect(r.code, r.stderr.slice(-2000)).toBe(1);
    expect(helperPids().length).toBeGreaterThan(0);
    expect(helperPids().filter(isAlive)).toEqual([]);
    expect(processesUnder(results)).toEqual([]);
  });

  it('a password the lock process prints in its own form is masked; no secrets.json or node data is kept', async () => {
    const r = await cli(['lock-check', hostile('echo-password')]);
    expect(r.code, r.stderr.slice(-2000)).toBe(1);
    expect(r.stdout).toContain("A ! connecting with {'host': '127.0.0.1', 'port': ");
    expect(r.stdout).toMatch(/'password': '\*\*\*'/);
    expect(r.stdout).not.toMatch(/[0-9a-f]{32}/);
    const dir = runDirOf(r.stdout);
    expect(fs.existsSync(path.join(dir, 'logs'))).toBe(true);
    expect(fs.readdirSync(dir).sort()).not.toContain('secrets.json');
    expect(fs.existsSync(path.join(dir, 'nodes'))).toBe(false);
  });
});

describe('a run of a hostile lock process', () => {
  it("a stderr flood (64 MiB per process) is capped in the client's log", async () => {
    const r = await cli([
      `--lock=${hostile('stderrflood', '64')}`,
      '--nemesis=none',
      // One connect floods past the cap, and the time limit starts only after that first connect failed: the least
      // limit shows it (3 s before).
      '--time-limit=1',
      '--concurrency=1',
    ]);
    expect(r.code, r.stderr.slice(-2000)).toBe(2);
    const dir = r.stdout.match(/run dir: (.*)/)![1].trim();
    const log = path.join(dir, 'logs', 'client-0.log');
    expect(fs.statSync(log).size).toBeLessThan(17 << 20);
    expect(fs.readFileSync(log, 'utf8')).toMatch(
      /\[fencepost: dropped \d+ lines \(\d+ bytes\) of lock process \d+'s stderr past its cap of 1048576 bytes; its last 20:\]/,
    );
  });

  it('a wrapper that leaves a setsid helper holding its stdout: the run ends on time, the helper dies with it', async () => {
    const lock = manifest('forking-wrapper', [
      '/bin/sh',
      '-c',
      `(setsid sleep 902 & echo $! >> "$0"); exec /usr/bin/python3 ${path.resolve('examples/python-redis-lock.py')}`,
      helpers,
    ]);
    const before = helperPids().length;
    // --min-writes=0: VALID (exit 0) rests on the checkers alone, so it does not depend on how many writes a busy
    // machine lets 2 s hold; the run's length is what is shown (6 s before).
    const limitS = 2;
    const r = await cli([
      `--lock=${lock}`,
      '--nemesis=none',
      `--time-limit=${limitS}`,
      '--min-writes=0',
      '--concurrency=2',
      '--seed=7',
    ]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    // Each client's close waited for the helper's pipe until the stop grace, 12 s at the default TTL (17.4 s of ops
    // for a 6 s run): the last iteration and the close get 4 s here.
    const over = Number(r.stdout.match(/over ([\d.]+) s/)?.[1]);
    expect(over, r.stdout).toBeLessThan(limitS + 4);
    expect(helperPids().length).toBeGreaterThan(before);
    expect(helperPids().filter(isAlive)).toEqual([]);
    expect(processesUnder(results)).toEqual([]);
  });
});
