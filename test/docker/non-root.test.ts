import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNodeImage } from '../../cluster/docker/ensure-image.ts';
import { EXIT } from '../../common/exit-codes.ts';
import { engineForTests } from './engine-for-tests.ts';

/**
 * --backend=docker as a user who is not root, as a new user meets it: one in the docker group runs a real
 * Postgres test (no chown needed), one outside it is told the socket refuses them. Throwaway users made with
 * useradd, so this needs root; elsewhere it skips saying so.
 */
const root = process.getuid?.() === 0;
if (!root) console.warn('docker non-root tests skipped: they create throwaway users with useradd, which needs root.');
const docker = root ? await engineForTests('docker non-root tests') : null;
const repo = path.resolve(import.meta.dirname, '../..');

describe.skipIf(!docker)('docker backend as a non-root user', () => {
  const suffix = crypto.randomBytes(3).toString('hex');
  const inGroup = `fpt-dk-${suffix}`;
  const outside = `fpt-nd-${suffix}`;
  const results: Record<string, string> = {};

  beforeAll(async () => {
    await ensureNodeImage(docker!, (l) => console.log(l));
    execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', '--groups', 'docker', inGroup]);
    execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', outside]);
    for (const user of [inGroup, outside]) {
      results[user] = fs.mkdtempSync(path.join(os.tmpdir(), `fp-nonroot-${user}-`));
      execFileSync('chown', [user, results[user]]);
    }
  }, 400_000);

  afterAll(() => {
    for (const user of [inGroup, outside]) {
      spawnSync('userdel', [user]);
      if (results[user]) fs.rmSync(results[user], { recursive: true, force: true });
    }
  });

  /** The CLI as `user`, with its groups (runuser sets the supplementary groups; node's spawn uid/gid would drop them). */
  function asUser(user: string, args: string[]) {
    return spawnSync('runuser', ['-u', user, '--', process.execPath, '--import', 'tsx', 'cli.ts', ...args], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 110_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' },
    });
  }

  /** A checkout other users can't read (under a 0700 /root) can't be run by them: nothing of ours to test then. */
  function readableBy(user: string): boolean {
    return (
      spawnSync('runuser', ['-u', user, '--', 'test', '-r', path.join(repo, 'cli.ts')]).status === 0 &&
      spawnSync('runuser', ['-u', user, '--', 'test', '-x', process.execPath]).status === 0
    );
  }

  it('a user in the docker group runs --backend=docker --lock=postgres to a valid verdict; the run dir is all theirs', (ctx) => {
    if (!readableBy(inGroup)) ctx.skip(`${repo} or ${process.execPath} is not readable by other users`);
    const r = asUser(inGroup, [
      '--backend=docker',
      '--lock=postgres',
      '--time-limit=2',
      '--nemesis=none',
      `--results=${results[inGroup]}`,
      '--seed=3',
    ]);
    expect(r.stderr + r.stdout).toContain('VALID');
    expect(r.status).toBe(EXIT.valid);
    // Nothing root- or postgres-owned is left for the user to trip over.
    const uid = Number(execFileSync('id', ['-u', inGroup], { encoding: 'utf8' }));
    const foreign = execFileSync('find', [results[inGroup], '!', '-uid', String(uid)], { encoding: 'utf8' }).trim();
    expect(foreign).toBe('');
  });

  it('a user outside the docker group is told the socket refuses them and how to join the group, exit 254', (ctx) => {
    if (!readableBy(outside)) ctx.skip(`${repo} or ${process.execPath} is not readable by other users`);
    const r = asUser(outside, [
      '--backend=docker',
      '--lock=postgres',
      '--time-limit=2',
      `--results=${results[outside]}`,
    ]);
    expect(r.status).toBe(EXIT.badArguments);
    expect(r.stderr).toContain('/var/run/docker.sock: permission denied');
    expect(r.stderr).toContain('sudo usermod -aG docker $USER');
    expect(r.stderr).not.toContain('no Docker engine answers');
  });
});
