import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childPids, PidRegistry, ticksSinceBoot } from '../../common/pid-registry.ts';
import { processesUnder, recordedProcessesUnder } from '../integration/processes.ts';
import { eventually } from './eventually.ts';

/**
 * The tests' "nothing left running" detector must see a run's processes by what the run recorded, not by its
 * folder: under a checkout the service accounts cannot enter, a server's command line and working folder name
 * nothing under the results folder (its home moved to the OS temp folder). Plain `sleep`s stand in for servers.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-processes-'));
const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-elsewhere-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) {
    for (const pid of childPids(c.pid!)) process.kill(pid, 'SIGKILL');
    c.kill('SIGKILL');
  }
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(elsewhere, { recursive: true, force: true });
});

function started(cmd: string, args: string[], cwd: string): ChildProcess {
  const c = spawn(cmd, args, { cwd, stdio: 'ignore' });
  children.push(c);
  return c;
}

describe('processesUnder', () => {
  it("finds a run's processes by its pid files although nothing in their command line or folder names it", async () => {
    const pids = new PidRegistry(path.join(root, 'redis', '2026-12-01T00-00-00.000Z', 'pids'));
    const server = started('sleep', ['30'], elsewhere);
    pids.add({ name: 'redis1', pid: server.pid!, marker: path.join(elsewhere, 'data') });
    // A Postgres-like parent whose backends are its children (killChildren).
    const postmaster = started('sh', ['-c', 'sleep 30 & sleep 30 & wait'], elsewhere);
    pids.add({ name: 'pg', pid: postmaster.pid!, marker: elsewhere, killChildren: true });
    // A pending record (written before the spawn): found by its working folder, started after it.
    pids.intend('etcd1', elsewhere, elsewhere);
    const notBefore = pids.list().find((r) => r.name === 'etcd1')!.pending!.notBefore;
    await eventually('a clock tick past the pending record', () => ticksSinceBoot() > notBefore, 5000);
    const pending = started('sleep', ['30'], elsewhere);
    await eventually(
      'the postmaster stand-in has its two backends',
      () => childPids(postmaster.pid!).length >= 2,
      5000,
    );

    const found = processesUnder(root).map((p) => p.pid);
    for (const pid of [server.pid!, postmaster.pid!, ...childPids(postmaster.pid!), pending.pid!])
      expect(found).toContain(pid);
    expect(recordedProcessesUnder(root).map((p) => p.pid)).toEqual([...found].sort((a, b) => a - b));
    // Only the recorded ones: this test's own process is never among them.
    expect(found).not.toContain(process.pid);
  });

  it('a record whose process is gone, or whose pid now names another process, names nothing', async () => {
    const dir = path.join(root, 'gone', 'run', 'pids');
    const pids = new PidRegistry(dir);
    const c = started('sleep', ['30'], elsewhere);
    pids.add({ name: 'x', pid: c.pid!, marker: elsewhere });
    c.kill('SIGKILL');
    await new Promise((r) => c.once('exit', r));
    // Same pid, another start time: pid reuse.
    pids.add({ name: 'y', pid: process.pid, marker: elsewhere, startTime: 1 });
    expect(recordedProcessesUnder(path.join(root, 'gone'))).toEqual([]);
  });
});
