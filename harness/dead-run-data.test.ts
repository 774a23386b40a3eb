import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDeadRunData } from './dead-run-data.ts';
import { startTime } from '../common/pid-registry.ts';
import { PIDS_DIR, writeOwner } from '../common/run-owner.ts';
import { MEMORY_DIR } from '../common/memory-dir.ts';

// Real run folders on disk; "dead" harnesses are this process's pid with another start time (a reused pid).
const made: string[] = [];
afterEach(() => {
  for (const p of made.splice(0)) fs.rmSync(p, { recursive: true, force: true });
});

function results(): string {
  const r = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-dead-data-'));
  made.push(r);
  return r;
}

function run(resultsDir: string, name: string, owner: { pid: number; startTime: number | null } | null): string {
  const dir = path.join(resultsDir, 'redlock', name);
  fs.mkdirSync(path.join(dir, 'nodes', 'redis0'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'nodes', 'redis0', 'dump'), Buffer.alloc(512 * 1024, 1));
  fs.writeFileSync(path.join(dir, 'history.jsonl'), '{}\n');
  if (owner) {
    fs.mkdirSync(path.join(dir, PIDS_DIR));
    writeOwner(path.join(dir, PIDS_DIR), { pid: owner.pid, startTime: owner.startTime ?? 0, dirs: [] });
  }
  return dir;
}

describe('cleanup --data', () => {
  it('removes nodes/ of a run whose harness is gone, keeps its history, and counts the bytes', () => {
    const r = results();
    const dead = run(r, 'dead', { pid: process.pid, startTime: 1 });
    const lines: string[] = [];
    const freed = removeDeadRunData(r, (l) => lines.push(l));
    expect(fs.existsSync(path.join(dead, 'nodes'))).toBe(false);
    expect(fs.existsSync(path.join(dead, 'history.jsonl'))).toBe(true);
    expect(freed).toBeGreaterThanOrEqual(512 * 1024);
    expect(lines).toEqual([`removed the node data of ${dead} (0.5 MB)`]);
  });

  it('keeps the data of a run whose harness still runs', () => {
    const r = results();
    const live = run(r, 'live', { pid: process.pid, startTime: startTime(process.pid) });
    expect(removeDeadRunData(r, () => {})).toBe(0);
    expect(fs.existsSync(path.join(live, 'nodes', 'redis0', 'dump'))).toBe(true);
  });

  it('a run with no owner record: kept while a server works in it, removed once none does', async () => {
    const r = results();
    const old = run(r, 'old', null);
    const server = spawn('sleep', ['30'], { cwd: path.join(old, 'nodes', 'redis0'), stdio: 'ignore' });
    try {
      await new Promise((ok) => server.once('spawn', ok));
      expect(removeDeadRunData(r, () => {})).toBe(0);
    } finally {
      server.kill('SIGKILL');
      await new Promise((ok) => server.once('exit', ok));
    }
    expect(removeDeadRunData(r, () => {})).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(old, 'nodes'))).toBe(false);
  });

  it('removes data kept outside the run dir (DATA-IS-ELSEWHERE) only when it is a fencepost-* folder in the temp dir', () => {
    const r = results();
    const dead = run(r, 'dead', { pid: process.pid, startTime: 1 });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-pg-'));
    const notOurs = fs.mkdtempSync(path.join(os.tmpdir(), 'someone-else-'));
    made.push(outside, notOurs);
    fs.writeFileSync(path.join(outside, 'PG_VERSION'), '15\n');
    fs.mkdirSync(path.join(dead, 'nodes', 'pg'));
    fs.writeFileSync(path.join(dead, 'nodes', 'pg', 'DATA-IS-ELSEWHERE'), `${outside}\n`);
    fs.mkdirSync(path.join(dead, 'nodes', 'evil'));
    fs.writeFileSync(path.join(dead, 'nodes', 'evil', 'DATA-IS-ELSEWHERE'), `${notOurs}\n`);
    removeDeadRunData(r, () => {});
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.existsSync(notOurs)).toBe(true);
  });

  it.skipIf(!fs.existsSync(MEMORY_DIR))(
    'removes Postgres data kept in the memory folder (a fencepost-* folder in /dev/shm), and nothing else there',
    () => {
      const r = results();
      const dead = run(r, 'dead', { pid: process.pid, startTime: 1 });
      const inMemory = fs.mkdtempSync(path.join(MEMORY_DIR, 'fencepost-pg-'));
      const notOurs = fs.mkdtempSync(path.join(MEMORY_DIR, 'someone-else-'));
      made.push(inMemory, notOurs);
      fs.writeFileSync(path.join(inMemory, 'PG_VERSION'), '15\n');
      for (const [node, target] of [
        ['pg', inMemory],
        ['evil', notOurs],
      ]) {
        fs.mkdirSync(path.join(dead, 'nodes', node));
        fs.writeFileSync(path.join(dead, 'nodes', node, 'DATA-IS-ELSEWHERE'), `${target}\n`);
      }
      const lines: string[] = [];
      expect(removeDeadRunData(r, (l) => lines.push(l))).toBeGreaterThan(0);
      expect(fs.existsSync(inMemory)).toBe(false);
      expect(fs.existsSync(notOurs)).toBe(true);
      expect(lines.join('\n')).toContain(dead);
    },
  );
});

describe('cleanup --data on a shared machine', () => {
  it("a symlink planted in a dead run's folder is removed as a link: what it points at survives", () => {
    const r = results();
    const dead = run(r, 'dead', { pid: process.pid, startTime: 1 });
    const victim = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-victim-'));
    made.push(victim);
    fs.writeFileSync(path.join(victim, 'precious'), 'keep me');
    fs.symlinkSync(victim, path.join(dead, 'nodes', 'redis0', 'data'));
    fs.symlinkSync(path.join(victim, 'precious'), path.join(dead, 'nodes', 'redis0', 'dump.rdb'));
    removeDeadRunData(r, () => {});
    expect(fs.existsSync(path.join(dead, 'nodes'))).toBe(false);
    expect(fs.readFileSync(path.join(victim, 'precious'), 'utf8')).toBe('keep me');
  });

  it.skipIf(process.getuid?.() !== 0)(
    "a DATA-IS-ELSEWHERE marker the server's account wrote (not ours) names nothing to remove (root only)",
    () => {
      const r = results();
      const dead = run(r, 'dead', { pid: process.pid, startTime: 1 });
      const target = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-pg-'));
      made.push(target);
      fs.writeFileSync(path.join(target, 'PG_VERSION'), '15');
      const marker = path.join(dead, 'nodes', 'redis0', 'DATA-IS-ELSEWHERE');
      fs.writeFileSync(marker, `${target}\n`);
      fs.chownSync(marker, 65534, 65534);
      removeDeadRunData(r, () => {});
      expect(fs.existsSync(path.join(target, 'PG_VERSION'))).toBe(true);
    },
  );
});
