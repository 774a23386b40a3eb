import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from './cleanup.ts';
import { isAlive, PidRegistry } from './pid-registry.ts';

// `cleanup` on real processes (`sleep`), standing in for servers whose harness was kill -9ed.
const spawned: number[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const pid of spawned.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // stopped by the test
    }
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function runDir(): { results: string; node: string; reg: PidRegistry } {
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-cleanup-'));
  dirs.push(results);
  const node = path.join(results, 'redis', 'run-1', 'nodes', 'redis0');
  fs.mkdirSync(node, { recursive: true });
  return { results, node, reg: new PidRegistry(path.join(results, 'redis', 'run-1', 'pids')) };
}

function orphan(cwd: string): number {
  const child = spawn('sleep', ['60'], { cwd, detached: true, stdio: 'ignore' });
  child.unref();
  spawned.push(child.pid!);
  return child.pid!;
}

describe('cleanup', () => {
  it('stops a recorded process and removes its record', async () => {
    const { results, node, reg } = runDir();
    const pid = orphan(node);
    reg.add({ name: 'redis0', pid, marker: node });
    const lines: string[] = [];
    expect(await cleanup(results, (l) => lines.push(l))).toBe(1);
    expect(isAlive(pid)).toBe(false);
    expect(reg.list()).toEqual([]);
    expect(lines.at(-1)).toBe('cleanup: stopped 1 leftover process(es).');
  });

  it('finds a process spawned after its pending record, when the harness died before writing the pid', async () => {
    const { results, node, reg } = runDir();
    reg.intend('redis0', node, node);
    const pid = orphan(node);
    fs.mkdirSync(path.join(node, 'data'));
    const below = orphan(path.join(node, 'data')); // as Postgres, which chdir()s into its data directory
    const bystander = orphan(path.dirname(node)); // same run, other directory: not ours to kill
    await sleep(50);
    expect(await cleanup(results, () => {})).toBe(1);
    expect(isAlive(pid)).toBe(false);
    expect(isAlive(below)).toBe(false);
    expect(isAlive(bystander)).toBe(true);
    expect(reg.list()).toEqual([]);
  });

  it('leaves a process alone whose pid was reused: its start time differs from the record', async () => {
    const { results, node, reg } = runDir();
    const pid = orphan(node);
    reg.add({ name: 'redis0', pid, marker: node, startTime: 1 });
    expect(await cleanup(results, () => {})).toBe(0);
    expect(isAlive(pid)).toBe(true);
    expect(reg.list()).toEqual([]);
  });

  it('a pending record older than the process in its directory does not name it', async () => {
    const { results, node, reg } = runDir();
    const pid = orphan(node);
    await sleep(50);
    // Written after the process started: whatever is in the directory was not started by this spawn.
    fs.writeFileSync(path.join(reg.dir, 'redis0.json'), JSON.stringify({ name: 'redis0', pid: 0, marker: node, pending: { cwd: fs.realpathSync(node), notBefore: Number.MAX_SAFE_INTEGER } }));
    expect(await cleanup(results, () => {})).toBe(0);
    expect(isAlive(pid)).toBe(true);
  });
});
