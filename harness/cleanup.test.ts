import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from './cleanup.ts';
import { cmdline, isAlive, PidRegistry, ticksSinceBoot } from '../common/pid-registry.ts';
import { claimRun, writeOwner } from '../common/run-owner.ts';
import { LockCgroups, lockCgroupsMissing } from '../workloads/foreign/lock-cgroups.ts';
import { inCgroupArgv } from '../common/cgroup2.ts';
import { treePids } from '../workloads/foreign/lock-tree.ts';
import { eventually } from '../test/support/eventually.ts';
import { flagTarget } from '../test/support/flag-target.ts';
import { CommandLog } from '../target/command-log.ts';

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

/** A process that has exited: its pid names no live process with its start time any more. */
const DEAD_HARNESS = { pid: spawnSync('true').pid, startTime: 1 };

/** A run dir whose harness is gone (as after kill -9), unless `harness: 'alive'` (this very process). */
function runDir(opts: { harness?: 'dead' | 'alive' | 'unrecorded'; tempDirs?: string[] } = {}): {
  results: string;
  run: string;
  node: string;
  reg: PidRegistry;
} {
  const results = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-cleanup-')));
  dirs.push(results);
  const run = path.join(results, 'redis', 'run-1');
  const node = path.join(run, 'nodes', 'redis0');
  fs.mkdirSync(node, { recursive: true });
  const reg = new PidRegistry(path.join(run, 'pids'));
  if (opts.harness === 'alive') claimRun(reg.dir);
  else if (opts.harness !== 'unrecorded') writeOwner(reg.dir, { ...DEAD_HARNESS, dirs: opts.tempDirs ?? [] });
  return { results, run, node, reg };
}

/** A pending record as a harness killed between fork and pid record leaves it: written just before the spawn. */
function pendingRecord(reg: PidRegistry, name: string, cwd: string): void {
  reg.intend(name, cwd, cwd);
}

function orphan(cwd: string): number {
  const child = spawn('sleep', ['60'], { cwd, detached: true, stdio: 'ignore' });
  child.unref();
  spawned.push(child.pid!);
  return child.pid!;
}

/** Each orphan is `sleep` in its folder: the spawn's chdir and exec are done, so its cwd and start time are final. */
async function execd(...pids: number[]): Promise<void> {
  await eventually("the orphans exec'd sleep", () => pids.every((p) => cmdline(p)?.startsWith('sleep ')), 5000);
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
    expect(lines).toContain(`stopped redis0 (pid ${pid}) from ${path.join(results, 'redis', 'run-1')}`);
    expect(lines.at(-1)).toBe('cleanup: stopped 1 leftover process(es).');
  });

  it('finds a process spawned after its pending record, when the harness died before writing the pid', async () => {
    const { results, node, reg } = runDir();
    reg.intend('redis0', node, node);
    const pid = orphan(node);
    fs.mkdirSync(path.join(node, 'data'));
    const below = orphan(path.join(node, 'data')); // as Postgres, which chdir()s into its data directory
    const bystander = orphan(path.dirname(node)); // same run, other directory: not ours to kill
    await execd(pid, below, bystander);
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
    await execd(pid);
    // Written after the process started: whatever is in the directory was not started by this spawn.
    fs.writeFileSync(
      path.join(reg.dir, 'redis0.json'),
      JSON.stringify({
        name: 'redis0',
        pid: 0,
        marker: node,
        pending: { cwd: fs.realpathSync(node), notBefore: Number.MAX_SAFE_INTEGER },
      }),
    );
    expect(await cleanup(results, () => {})).toBe(0);
    expect(isAlive(pid)).toBe(true);
  });

  it('leaves a run alone while its harness is alive, and says so', async () => {
    const { results, run, node, reg } = runDir({ harness: 'alive' });
    const pid = orphan(node);
    reg.add({ name: 'redis0', pid, marker: node });
    pendingRecord(reg, 'redis1', node);
    const late = orphan(node);
    await execd(pid, late);
    const lines: string[] = [];
    expect(await cleanup(results, (l) => lines.push(l))).toBe(0);
    expect(isAlive(pid)).toBe(true);
    expect(isAlive(late)).toBe(true);
    expect(
      reg
        .list()
        .map((r) => r.name)
        .sort(),
    ).toEqual(['redis0', 'redis1']);
    expect(lines).toContain(`running, left alone: ${run} (its harness, pid ${process.pid}, is alive)`);
    expect(lines.at(-1)).toBe('cleanup: nothing left over (left 1 run(s) alone).');
  });

  it('leaves a run alone that has no harness record: it cannot tell a live run from a dead one', async () => {
    const { results, node, reg } = runDir({ harness: 'unrecorded' });
    const pid = orphan(node);
    reg.add({ name: 'redis0', pid, marker: node });
    const lines: string[] = [];
    expect(await cleanup(results, (l) => lines.push(l))).toBe(0);
    expect(isAlive(pid)).toBe(true);
    expect(lines.join('\n')).toMatch(/left alone: .*run-1 has 1 pid record\(s\) but no readable harness record/);
  });

  it.each([
    ['/', () => '/'],
    ['the results folder (parent of the run)', (results: string) => results],
    ['the parent of the run dir', (results: string) => path.join(results, 'redis')],
  ])('a pending record naming %s stops nothing outside the run’s folders', async (_what, broad) => {
    const { results, reg } = runDir();
    pendingRecord(reg, 'redis0', broad(results));
    // Started after the record, under the record's folder but outside the run's: a user's process.
    const inResults = orphan(results);
    const inTmp = orphan(os.tmpdir());
    const atRoot = orphan('/');
    await execd(inResults, inTmp, atRoot);
    const lines: string[] = [];
    expect(await cleanup(results, (l) => lines.push(l))).toBe(0);
    for (const pid of [inResults, inTmp, atRoot]) expect(isAlive(pid)).toBe(true);
    expect(lines.join('\n')).toMatch(/ignored the pending record redis0 .*is not one of the run's own/);
    expect(reg.list()).toEqual([]);
  });

  it("a pending record finds its process in a temp folder the run created and recorded (Postgres's data dir as root), never in a broad recorded one", async () => {
    const temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-pg-')));
    dirs.push(temp);
    const { results, reg } = runDir({ tempDirs: [temp, '/', os.tmpdir()] });
    pendingRecord(reg, 'pg0', temp);
    const pg = orphan(temp);
    pendingRecord(reg, 'pg1', os.tmpdir()); // recorded, but no folder of ours: dropped
    const bystander = orphan(os.tmpdir());
    await execd(pg, bystander);
    expect(await cleanup(results, () => {})).toBe(1);
    expect(isAlive(pg)).toBe(false);
    expect(isAlive(bystander)).toBe(true);
  });

  it.each([
    ['an empty marker', { marker: '' }],
    ['a relative marker', { marker: 's' }],
    ['a garbled marker', { marker: 42 as unknown as string }],
  ])('%s without a start time names no process', async (_what, rec) => {
    const { results, reg } = runDir();
    const pid = orphan(os.tmpdir());
    fs.writeFileSync(path.join(reg.dir, 'redis0.json'), JSON.stringify({ name: 'redis0', pid, ...rec }));
    expect(await cleanup(results, () => {})).toBe(0);
    expect(isAlive(pid)).toBe(true);
    expect(reg.list()).toEqual([]);
  });
});

describe("cleanup on a shared machine: only what this user's runs created", () => {
  it.skipIf(process.getuid?.() !== 0)(
    'a pid record or harness record another user planted names nothing to kill (root only)',
    async () => {
      const { results, node, reg } = runDir();
      const victim = orphan(node);
      reg.add({ name: 'redis0', pid: victim, marker: node });
      fs.chownSync(path.join(reg.dir, 'redis0.json'), 65534, 65534);
      expect(await cleanup(results, () => {})).toBe(0);
      expect(isAlive(victim)).toBe(true);

      const other = runDir();
      const victim2 = orphan(other.node);
      other.reg.add({ name: 'redis0', pid: victim2, marker: other.node });
      fs.chownSync(path.join(other.reg.dir, 'harness.owner'), 65534, 65534);
      const lines: string[] = [];
      expect(await cleanup(other.results, (l) => lines.push(l))).toBe(0);
      expect(isAlive(victim2)).toBe(true);
      expect(lines.join('\n')).toMatch(
        /left alone: .*run-1 \(its pid records: belongs to uid 65534, not to us \(uid 0\)\) — not a run of ours/,
      );
    },
  );

  it('a pending record does not name a process started long after it (someone who opened a shell in the node folder)', async () => {
    const { results, node, reg } = runDir();
    // Written 10 s before the process started: far outside the moment a spawn follows its record.
    fs.writeFileSync(
      path.join(reg.dir, 'redis0.json'),
      JSON.stringify({
        name: 'redis0',
        pid: 0,
        marker: node,
        pending: { cwd: fs.realpathSync(node), notBefore: ticksSinceBoot() - 1000 },
      }),
    );
    const shell = orphan(node);
    await execd(shell);
    expect(await cleanup(results, () => {})).toBe(0);
    expect(isAlive(shell)).toBe(true);
  });
});

describe('cleanup of a lock process tree (a harness killed with kill -9 mid-run)', () => {
  /** A lock process as the client spawns it — a group leader, or in a cgroup — with nobody left to reap it. */
  function lockProcess(script: string, cgroup: string | null): number {
    const [file, ...args] = cgroup ? inCgroupArgv(cgroup, ['/bin/sh', '-c', script]) : ['/bin/sh', '-c', script];
    const child = spawn(file, args, { detached: true, stdio: 'ignore' });
    child.unref();
    spawned.push(child.pid!);
    return child.pid!;
  }

  it("kills a leader's process group and what it forked, the leader gone already (no cgroup held it)", async () => {
    const { results, reg } = runDir();
    const leader = lockProcess('sleep 61 & sleep 0.5; exit 0', null);
    reg.add({ name: 'client-0-lock-1', pid: leader, marker: results, killGroup: true });
    const tree = { by: 'process-group' as const, leaders: [{ pid: leader, startTime: reg.list()[0].startTime! }] };
    const child = await eventually('the forked child', () => treePids(tree).find((x) => x !== leader), 5000);
    spawned.push(child);
    await eventually('the leader gone', () => (isAlive(leader) ? undefined : true), 5000);
    expect(isAlive(child)).toBe(true);
    const lines: string[] = [];
    expect(await cleanup(results, (l) => lines.push(l))).toBe(1);
    await eventually('the child killed', () => (isAlive(child) ? undefined : true), 5000);
    // The leader may still be a zombie nobody reaped yet: then it is named by its pid, else as gone.
    expect(lines.join('\n')).toMatch(
      new RegExp(`stopped client-0-lock-1 \\(pid ${leader}(, gone; its process group)? \\+ [12] children\\)`),
    );
  });

  it.runIf(lockCgroupsMissing() === null)(
    "kills everything in the run's lock cgroup — a setsid daemon in no group of ours — and removes it (root, cgroup2)",
    async () => {
      const { results, run, reg } = runDir();
      const made = LockCgroups.create(run, reg.dir);
      if (typeof made === 'string') return expect.fail(made);
      const slot = made.treeFor('client-0');
      fs.mkdirSync(path.join(slot.dir, 'lock-1'));
      lockProcess('(setsid sleep 62 &); exec sleep 63', path.join(slot.dir, 'lock-1'));
      const pids = await eventually(
        'two sleeps in the cgroup',
        () => (treePids(slot).length === 2 ? treePids(slot) : undefined),
        5000,
      );
      spawned.push(...pids);
      const lines: string[] = [];
      await cleanup(results, (l) => lines.push(l));
      await eventually('every process of the cgroup killed', () => (pids.some(isAlive) ? undefined : true), 5000);
      expect(fs.existsSync(made.dir)).toBe(false);
      expect(lines.join('\n')).toContain(
        `removed the lock processes' cgroup ${made.dir} (and what was in it) of ${run}`,
      );
    },
  );
});

describe("cleanup of a target's injections a dead run left armed (audit R3, R7)", () => {
  it('heals each through the adapter its guard.json names, says so, and leaves nothing armed', async () => {
    const { results, run } = runDir();
    const target = flagTarget();
    dirs.push(target.dir);
    fs.writeFileSync(path.join(target.dir, 'r0.state'), 'stopped\n');
    const guard = path.join(run, 'guard');
    fs.mkdirSync(guard, { mode: 0o700 });
    const config = {
      harnessPid: DEAD_HARNESS.pid,
      harnessStartTime: DEAD_HARNESS.startTime,
      adapters: { flag: target.adapter({ pause: [0, 0, 0], timeoutMs: 5000 }) },
      commandLog: path.join(run, 'target-commands.jsonl'),
      runId: 'run-1',
    };
    fs.writeFileSync(path.join(guard, 'guard.json'), JSON.stringify(config), { mode: 0o600 });
    const armed = { adapter: 'flag', action: 'pause', node: 'r0', expiresAt: Date.now() + 60_000 };
    fs.writeFileSync(path.join(guard, '4242-1.json'), JSON.stringify(armed), { mode: 0o600 });
    const lines: string[] = [];
    await cleanup(results, (l) => lines.push(l));
    expect(target.state()).toBe('running');
    expect(lines).toContain(`healed pause of r0 (flag): its run is gone (left armed by ${run})`);
    expect(lines.at(-1)).toBe("cleanup: healed 1 injection(s) left armed on a target's servers.");
    expect(fs.readdirSync(guard).sort()).toEqual(['guard.json']);
    const logged = CommandLog.read(config.commandLog);
    expect(logged.map((c) => [c.action, c.ok, c.by])).toEqual([['resume', true, 'cleanup']]);
  });

  it('a heal that fails is said last and loudly, with its command, and stays armed (issue 49 rerun: it said "nothing left over")', async () => {
    const { results, run } = runDir();
    const target = flagTarget();
    dirs.push(target.dir);
    fs.writeFileSync(path.join(target.dir, 'r0.state'), 'stopped\n');
    const guard = path.join(run, 'guard');
    fs.mkdirSync(guard, { mode: 0o700 });
    const config = {
      harnessPid: DEAD_HARNESS.pid,
      harnessStartTime: DEAD_HARNESS.startTime,
      adapters: { flag: target.adapter({ pause: [0, 0, 0], resumeExit: 1, timeoutMs: 5000 }) },
      commandLog: path.join(run, 'target-commands.jsonl'),
      runId: 'run-1',
    };
    fs.writeFileSync(path.join(guard, 'guard.json'), JSON.stringify(config), { mode: 0o600 });
    const armed = { adapter: 'flag', action: 'pause', node: 'r0', expiresAt: Date.now() + 60_000 };
    fs.writeFileSync(path.join(guard, '4242-1.json'), JSON.stringify(armed), { mode: 0o600 });
    const lines: string[] = [];
    const unhealed: string[] = [];
    await cleanup(results, (l) => lines.push(l), { unhealed });
    expect(target.state()).toBe('stopped');
    const line = `r0 (pause by ${run}) may still be stopped: ${target.dir}/resume.sh r0 1`;
    expect(unhealed).toEqual([line]);
    expect(lines.at(-1)).toBe(`cleanup: TARGET LEFT FAULTED: ${line}`);
    expect(lines).not.toContain('cleanup: nothing left over.');
    expect(fs.readdirSync(guard).sort()).toEqual(['4242-1.json', 'guard.json']);
  });
});
