import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { libraryVersions, packageJsonOf, TRACKED_LIBRARIES } from './versions.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-versions-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A project folder laid out as npm hoists an installed fencepost: its dependencies beside it, not inside it. */
function hoistedProject(): string {
  const project = path.join(scratch, 'project');
  const own = path.join(project, 'node_modules', 'fencepost', 'cluster');
  fs.mkdirSync(own, { recursive: true });
  for (const [name, version] of [
    ['ioredis', '5.9.9'],
    ['pg', '8.1.2'],
  ]) {
    fs.mkdirSync(path.join(project, 'node_modules', name), { recursive: true });
    fs.writeFileSync(path.join(project, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
  }
  return own;
}

describe('library versions', () => {
  it('an installed copy finds its dependencies hoisted beside it (it said "not installed" for every one)', () => {
    const own = hoistedProject();
    const v = libraryVersions(own);
    expect(v.ioredis).toBe('5.9.9');
    expect(v.pg).toBe('8.1.2');
    expect(v.etcd3).toBe('not installed');
    expect(packageJsonOf('pg', own)).toBe(path.join(scratch, 'project', 'node_modules', 'pg', 'package.json'));
  });

  it("this checkout's own: every tracked library at the version package-lock.json pins, redlock included", () => {
    const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    const v = libraryVersions();
    // redlock's own package.json says "v5.0.0-beta.2"; the lock file drops the v.
    for (const name of TRACKED_LIBRARIES)
      expect(v[name].replace(/^v/, ''), name).toBe(lock.packages[`node_modules/${name}`].version);
  });
});
