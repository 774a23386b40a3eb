import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTime } from '../../common/pid-registry.ts';
import { createScratch, removeLeftoverRootfs, removeScratch, ROOTFS_PREFIX } from './rootfs.ts';

// Real folders and real processes in a throwaway parent folder standing in for /var/tmp.
const parents: string[] = [];
function parent(): string {
  const p = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-rootfs-test-'));
  parents.push(p);
  return p;
}
afterEach(() => {
  for (const p of parents.splice(0)) fs.rmSync(p, { recursive: true, force: true });
});

function scratchOf(builder: { pid: number; startTime: number | null } | null, p: string): string {
  const dir = fs.mkdtempSync(path.join(p, ROOTFS_PREFIX));
  if (builder) fs.writeFileSync(path.join(dir, 'builder.json'), JSON.stringify(builder), { mode: 0o600 });
  fs.mkdirSync(path.join(dir, 'root', 'usr'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'root', 'usr', 'blob'), Buffer.alloc(256 * 1024, 1));
  return dir;
}

describe('leftover root file systems of the image builder', () => {
  it('removes one whose builder is gone (same pid, other start time = a reused pid) and says how much it freed', () => {
    const p = parent();
    const dir = scratchOf({ pid: process.pid, startTime: 1 }, p);
    const lines: string[] = [];
    const freed = removeLeftoverRootfs((l) => lines.push(l), p);
    expect(fs.existsSync(dir)).toBe(false);
    expect(freed).toBeGreaterThanOrEqual(256 * 1024);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^removed ${dir} \\(0\\.\\d MB\\)`))]);
  });

  it('keeps one whose builder still runs', () => {
    const p = parent();
    const dir = scratchOf({ pid: process.pid, startTime: startTime(process.pid) }, p);
    expect(removeLeftoverRootfs(() => {}, p)).toBe(0);
    expect(fs.existsSync(dir)).toBe(true);
  });

  it('keeps one whose builder is gone while a process works in it (an orphaned debootstrap), removes it after', async () => {
    const p = parent();
    const dir = scratchOf({ pid: process.pid, startTime: 1 }, p);
    const child = spawn('sleep', ['30'], { cwd: path.join(dir, 'root'), stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      const lines: string[] = [];
      expect(removeLeftoverRootfs((l) => lines.push(l), p)).toBe(0);
      expect(lines[0]).toContain(`pid ${child.pid} still works in it`);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(removeLeftoverRootfs(() => {}, p)).toBeGreaterThan(0);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('leaves alone, and says so, one that is not provably ours: no private marker, a marker others can write, another owner, a symlink', () => {
    const p = parent();
    const noMarker = scratchOf(null, p);
    const openMarker = scratchOf({ pid: process.pid, startTime: 1 }, p);
    fs.chmodSync(path.join(openMarker, 'builder.json'), 0o666);
    const link = path.join(p, `${ROOTFS_PREFIX}link`);
    fs.symlinkSync(scratchOf({ pid: process.pid, startTime: 1 }, parent()), link);
    const lines: string[] = [];
    expect(removeLeftoverRootfs((l) => lines.push(l), p)).toBe(0);
    for (const dir of [noMarker, openMarker, link]) expect(fs.existsSync(dir)).toBe(true);
    expect(lines.sort()).toEqual(
      [
        `left alone: ${link} (is a symlink) — not a build of ours`,
        `left alone: ${noMarker} (cannot be read (ENOENT)) — not a build of ours`,
        `left alone: ${openMarker} (is writable by others (mode 666)) — not a build of ours`,
      ].sort(),
    );
  });

  it.skipIf(process.getuid?.() !== 0)("a second user's folder survives cleanup, marker and all (root only)", () => {
    const p = parent();
    const theirs = scratchOf({ pid: process.pid, startTime: 1 }, p); // a dead builder: would be removed if ours
    for (const f of [theirs, path.join(theirs, 'builder.json'), path.join(theirs, 'root')])
      fs.chownSync(f, 65534, 65534);
    const lines: string[] = [];
    expect(removeLeftoverRootfs((l) => lines.push(l), p)).toBe(0);
    expect(fs.existsSync(path.join(theirs, 'root', 'usr', 'blob'))).toBe(true);
    expect(lines).toEqual([`left alone: ${theirs} (belongs to uid 65534, not to us (uid 0)) — not a build of ours`]);
  });

  it('createScratch records its builder, so a build in progress is never taken for a leftover', () => {
    const p = parent();
    const s = createScratch(p);
    expect(JSON.parse(fs.readFileSync(path.join(s.dir, 'builder.json'), 'utf8')).pid).toBe(process.pid);
    expect(removeLeftoverRootfs(() => {}, p)).toBe(0);
    removeScratch(s.dir);
    expect(fs.existsSync(s.dir)).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'unmounts what debootstrap left mounted inside before removing (root only)',
    () => {
      const p = parent();
      const dir = scratchOf({ pid: process.pid, startTime: 1 }, p);
      const proc = path.join(dir, 'root', 'proc');
      fs.mkdirSync(proc);
      execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', proc]);
      fs.writeFileSync(path.join(proc, 'on-the-mount'), 'x');
      expect(removeLeftoverRootfs(() => {}, p)).toBeGreaterThan(0);
      expect(fs.existsSync(dir)).toBe(false);
      expect(fs.readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(dir);
    },
  );
});
