import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXEC_DEFAULTS, manifestLock, readForeignLock } from './manifest.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-manifest-'));
const program = path.join(dir, 'lock.py');
fs.writeFileSync(program, '#!/usr/bin/python3\n', { mode: 0o755 });
fs.writeFileSync(path.join(dir, 'plain.txt'), '', { mode: 0o644 });
fs.mkdirSync(path.join(dir, 'sub'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const file = path.join(dir, 'x.json');
const onPath = (name: string) => name === 'python3';
const GOOD = { command: ['python3', 'lock.py'], needs: ['redis'], token: 'none' };

function problems(raw: unknown): string[] {
  const r = manifestLock(raw, file, onPath);
  return 'problems' in r ? r.problems : [];
}

describe('manifestLock', () => {
  it('resolves a minimal manifest: its folder as cwd, its file name as name, the plugin defaults', () => {
    const r = manifestLock(GOOD, file, onPath);
    expect(r).toEqual({
      lock: {
        facts: { name: 'x', needs: ['redis'], token: 'none', renews: false },
        command: { command: ['python3', 'lock.py'], cwd: dir, expectToken: false, renews: false },
        manifest: file,
      },
    });
  });

  it('carries every declared fact, cwd relative to the manifest, and token/renews into the command', () => {
    const r = manifestLock(
      {
        name: 'kazoo',
        command: ['../lock.py'],
        cwd: 'sub',
        needs: ['zk'],
        servers: { zk: 3 },
        token: 'monotonic',
        renews: true,
        exclusive: true,
        defaultFaults: ['pause-holder'],
      },
      file,
      onPath,
    );
    expect('lock' in r && r.lock.command).toEqual({
      command: ['../lock.py'],
      cwd: path.join(dir, 'sub'),
      expectToken: true,
      renews: true,
    });
    expect('lock' in r && r.lock.facts).toMatchObject({
      name: 'kazoo',
      servers: { zk: 3 },
      defaultFaults: ['pause-holder'],
    });
  });

  it.each([
    [null, 'a manifest is a JSON object'],
    [[], 'a manifest is a JSON object'],
    [{ ...GOOD, command: undefined }, '`command` must be a non-empty array of strings'],
    [{ ...GOOD, command: [] }, '`command` must be a non-empty array of strings'],
    [{ ...GOOD, command: 'python3 lock.py' }, '`command` must be a non-empty array of strings'],
    [{ ...GOOD, command: ['ruby'] }, '`command[0]`: "ruby" is not on PATH'],
    [{ ...GOOD, command: ['./missing.py'] }, `\`command[0]\`: no such program ${path.join(dir, 'missing.py')}`],
    [{ ...GOOD, command: ['./plain.txt'] }, 'is not executable: chmod +x it'],
    [{ ...GOOD, command: ['./sub'] }, 'is a folder, not a program'],
    [{ ...GOOD, cwd: 'nowhere' }, `\`cwd\`: no such folder ${path.join(dir, 'nowhere')}`],
    [{ ...GOOD, cwd: 3 }, '`cwd` must be a folder path'],
    [{ ...GOOD, needs: undefined }, '`needs` is required'],
    [{ ...GOOD, token: undefined }, '`token` is required'],
    [{ ...GOOD, needs: ['mysql'] }, "`needs`: unknown server \"mysql\" (the servers are 'redis', 'etcd', 'zk'"],
    // The protocol's endpoint key is `zookeeper`, so it is the name a manifest's author reaches for (it said
    // "`servers` runs [zk] but `needs` lists []", the unknown name dropped).
    [
      { ...GOOD, needs: ['zookeeper'], servers: { zk: 3 }, token: 'monotonic' },
      "`needs`: unknown server 'zookeeper': write 'zk' (the servers are 'redis', 'etcd', 'zk')",
    ],
    [{ ...GOOD, needs: ['zk'], servers: { zookeeper: 3 } }, "`servers`: unknown server 'zookeeper': write 'zk'"],
    [{ ...GOOD, needs: ['redis', 'postgres'] }, "'postgres' is not listed: Postgres (the resource) always runs"],
    [{ ...GOOD, token: 'version' }, "`token: 'version'` is reserved for the built-in postgres strategy"],
    [{ ...GOOD, token: 'yes' }, "`token` must be 'monotonic', 'version' or 'none'"],
    [{ ...GOOD, servers: { etcd: 1 } }, '`servers` runs [etcd] but `needs` lists [redis]'],
    [{ ...GOOD, renews: 'sometimes' }, '`renews` must be true or false'],
    [{ ...GOOD, exclusive: 1 }, '`exclusive` must be true or false'],
    [{ ...GOOD, defaultFaults: ['gc-pause'] }, '`defaultFaults` names unknown faults: gc-pause'],
    [{ ...GOOD, token: 'monotonic', noTokenReason: 'no' }, "`noTokenReason` is for `token: 'none'`"],
    [{ ...GOOD, name: '' }, '`name` must be a string'],
    [{ ...GOOD, comand: ['x'] }, '`comand`: not a manifest field'],
  ])('refuses %j: %s', (raw, why) => {
    expect(problems(raw).join('\n')).toContain(why);
    expect(problems(raw).join('\n')).not.toContain('`needs` lists []');
  });

  it('says every problem at once', () => {
    expect(problems({ command: [], needs: ['x'], token: 'none', extra: 1 })).toHaveLength(3);
  });
});

describe('readForeignLock', () => {
  it('names the file it cannot read or parse', () => {
    expect(readForeignLock('./nope.json', dir)).toEqual({
      problems: [`cannot read the manifest ${path.join(dir, 'nope.json')}: ENOENT`],
    });
    fs.writeFileSync(path.join(dir, 'broken.json'), '{ "command": ');
    const r = readForeignLock('./broken.json', dir);
    expect('problems' in r && r.problems[0]).toMatch(/^the manifest .*broken\.json is not JSON: /);
  });

  it('exec: runs the program from its own folder with the declared defaults: one Redis, no token, no renewals', () => {
    expect(readForeignLock('exec:./lock.py', dir)).toEqual({
      lock: {
        facts: { ...EXEC_DEFAULTS, name: 'lock.py' },
        command: { command: [program], cwd: dir, expectToken: false, renews: false },
        manifest: null,
      },
    });
    expect(EXEC_DEFAULTS).toMatchObject({ needs: ['redis'], servers: { redis: 1 }, token: 'none', renews: false });
  });

  it('exec: refuses a missing or non-executable program and an empty one', () => {
    expect(readForeignLock('exec:./missing.py', dir)).toEqual({
      problems: [`no such program ${path.join(dir, 'missing.py')}`],
    });
    expect(readForeignLock('exec:./plain.txt', dir)).toMatchObject({
      problems: [expect.stringContaining('is not executable')],
    });
    expect(readForeignLock('exec:', dir)).toEqual({
      problems: ['exec: needs a program, e.g. --lock=exec:./my-lock.py'],
    });
  });
});
