import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cmdline, isAlive, processState } from '../../common/pid-registry.ts';
import { cgroupFrozen } from '../../common/cgroup2.ts';
import { eventually } from '../../test/support/eventually.ts';
import { LockCgroups, lockCgroupsMissing } from './lock-cgroups.ts';
import { LockProcess } from './lock-process.ts';
import { groupTreePids, killTree, resumeTree, stopTree, treePids, treeStopNow } from './lock-tree.ts';
import type { ForeignCommand } from './manifest.ts';

/**
 * A lock process's tree is every process it started, however it started them: a wrapper that does not exec
 * (`sh -c "…; exit $?"`), a background helper, a double-forked `setsid` daemon. Real processes (sh and sleep stand in
 * for a wrapper and its lock client); no server.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-lock-tree-'));
const started: LockProcess[] = [];
afterAll(() => {
  for (const p of started) p.kill();
  fs.rmSync(work, { recursive: true, force: true });
});

const cmd = (script: string): ForeignCommand => ({
  command: ['/bin/sh', '-c', script],
  cwd: work,
  expectToken: false,
  renews: false,
});

/** Start `script` and wait until its tree is the shell's settled shape: `sleeps` sleep processes, `total` in all. */
async function start(script: string, cgroupParent: string | null, sleeps: number, total: number): Promise<LockProcess> {
  const p = await LockProcess.start(cmd(script), {}, { cgroupParent });
  started.push(p);
  await eventually(
    `${sleeps} sleeps of ${total} processes in the tree`,
    () => {
      const pids = treePids(p.tree);
      const asleep = pids.filter((pid) => (cmdline(pid) ?? '').startsWith('sleep ')).length;
      return pids.length === total && asleep === sleeps ? true : undefined;
    },
    5000,
  );
  return p;
}

describe('groupTreePids (pure)', () => {
  it("takes the groups' members and every descendant by parent pid, not an unrelated process", () => {
    const table = [
      { pid: 10, ppid: 1, pgrp: 10, state: 'S' }, // the leader (a wrapper)
      { pid: 11, ppid: 10, pgrp: 10, state: 'S' }, // its child, the lock client
      { pid: 12, ppid: 11, pgrp: 12, state: 'S' }, // a helper that called setsid: its parent is in the tree
      { pid: 13, ppid: 12, pgrp: 12, state: 'S' }, // and the helper's child
      { pid: 20, ppid: 1, pgrp: 20, state: 'S' }, // someone else's
    ];
    expect(groupTreePids(table, [10])).toEqual([10, 11, 12, 13]);
    expect(groupTreePids(table, [99])).toEqual([]);
  });
});

describe('a lock process held as its process group (no cgroup)', () => {
  it('stops, resumes and kills the wrapper and every child, a setsid one whose parent lives included', async () => {
    const p = await start('sleep 300 & setsid sleep 301 & wait', null, 2, 3);
    expect(p.tree.by).toBe('process-group');
    const pids = treePids(p.tree);
    stopTree(p.tree);
    const stopped = await eventually(
      'every process stopped',
      () => (treeStopNow(p.tree).running.length ? undefined : true),
      2000,
    );
    expect(stopped).toBe(true);
    expect(pids.map(processState)).toEqual(pids.map(() => 'T'));
    resumeTree(p.tree);
    await eventually(
      'every process running again',
      () => (pids.every((x) => processState(x) !== 'T') ? true : undefined),
      2000,
    );
    p.kill();
    expect(await p.exitedWithin(5000)).toBe(true);
    await eventually('nothing of the tree alive', () => (pids.some(isAlive) ? undefined : true), 5000);
  });
});

describe('a lock process held by a cgroup of its own', () => {
  const missing = lockCgroupsMissing();
  it(`freezes and kills every process, a double-forked setsid daemon included${missing ? ` — here: refused (${missing}), so the process group holds it` : ''}`, async () => {
    const runDir = fs.mkdtempSync(path.join(work, 'run-'));
    fs.mkdirSync(path.join(runDir, 'pids'));
    const made = LockCgroups.create(runDir, path.join(runDir, 'pids'));
    if (missing) {
      // Not root, or no cgroup2: the fallback is the product here, said as the reason.
      expect(made).toBe(missing);
      return;
    }
    if (typeof made === 'string') throw new Error(`a cgroup could not be made although nothing is missing: ${made}`);
    try {
      const slot = made.treeFor('client-0');
      // The daemon escapes every process group and has init as its parent: only the cgroup still holds it.
      const p = await start('(setsid sleep 302 &); exec sleep 300', slot.dir, 2, 2);
      expect(p.tree.by).toBe('cgroup');
      const pids = treePids(slot);
      expect(pids).toContain(p.pid);
      stopTree(slot);
      await eventually('the cgroup frozen', () => (cgroupFrozen(slot.dir) ? true : undefined), 2000);
      expect(treeStopNow(slot)).toEqual({ by: 'cgroup', pids, running: [] });
      resumeTree(slot);
      expect(treeStopNow(slot).running).toEqual(pids);
      killTree(slot);
      await eventually('nothing of the tree alive', () => (pids.some(isAlive) ? undefined : true), 5000);
    } finally {
      expect(made.dispose(path.join(runDir, 'pids'))).toBeNull();
    }
    expect(fs.existsSync(made.dir)).toBe(false);
  });
});

describe('the lock process ends', () => {
  it('its exit reaps what it left (a helper that kept its stdout), and waiting on it does not hang', async () => {
    // The helper inherited stdout: 'close' would never come while it lives, and the wait on it hung for good.
    const p = await start('sleep 303 & read line; exit 0', null, 1, 2);
    const helper = treePids(p.tree).find((pid) => (cmdline(pid) ?? '').startsWith('sleep '))!;
    const asked = p.request({ op: 'close' }, 5000).catch((err: Error) => err.message);
    expect(await p.exitedWithin(5000)).toBe(true);
    expect(await asked).toMatch(/exited with code 0/);
    await eventually('the helper killed', () => (isAlive(helper) ? undefined : true), 5000);
  });
});
