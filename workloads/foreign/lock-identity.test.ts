import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { debianPackageVersions } from '../../cluster/versions.ts';
import { loadForeignLock } from '../load-strategy.ts';
import { foreignLockRecord } from './lock-identity.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-identity-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const sha = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');

describe('which build of a foreign lock ran', () => {
  const manifest = path.join(dir, 'lock.json');
  const script = path.join(dir, 'lock.py');
  fs.writeFileSync(script, 'print("v1")\n');
  fs.writeFileSync(
    manifest,
    JSON.stringify({ command: ['/usr/bin/python3', 'lock.py'], needs: ['redis'], token: 'none' }),
  );

  it('records the manifest, a hash of every file its command names, and one fingerprint over them', () => {
    const r = foreignLockRecord(loadForeignLock(manifest), { 'python3-redis': '4.3.4-3' })!;
    expect(r.manifest).toEqual({
      path: manifest,
      sha256: sha(manifest),
      content: JSON.parse(fs.readFileSync(manifest, 'utf8')),
    });
    expect(r.files.map((f) => [f.arg, f.sha256])).toEqual([
      ['/usr/bin/python3', sha(fs.realpathSync('/usr/bin/python3'))],
      ['lock.py', sha(script)],
    ]);
    expect(r.packages).toEqual({ 'python3-redis': '4.3.4-3' });
    expect(r.fingerprint).toMatch(/^[0-9a-f]{12}$/);
  });

  it('two runs of a changed client differ; of the same one, agree', () => {
    const before = foreignLockRecord(loadForeignLock(manifest))!.fingerprint;
    expect(foreignLockRecord(loadForeignLock(manifest))!.fingerprint).toBe(before);
    fs.writeFileSync(script, 'print("v2")\n');
    expect(foreignLockRecord(loadForeignLock(manifest))!.fingerprint).not.toBe(before);
    const withLibrary = foreignLockRecord(loadForeignLock(manifest), { 'python3-redis': '5.0.0' })!.fingerprint;
    expect(withLibrary).not.toBe(foreignLockRecord(loadForeignLock(manifest))!.fingerprint);
  });

  it('none for a lock that runs in the client (a TypeScript strategy)', () => {
    expect(foreignLockRecord({ foreign: null, moduleUrl: pathToFileURL(script).href })).toBeNull();
  });

  it("a package's installed version comes from dpkg; one it does not list is not installed", () => {
    const v = debianPackageVersions(['dpkg', 'fencepost-no-such-package']);
    expect(v.dpkg).toMatch(/^\d/);
    expect(v['fencepost-no-such-package']).toBe('not installed');
  });
});
