import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { argvOfNpmLog, npmCommandLine, npmLogTime, npmOptions, swallowedByNpm } from './npm-swallowed.ts';

const NAMES = ['lock', 'time-limit', 'fencing', 'nemesis'];
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-npm-log-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The head of a debug log as npm 11 writes it for `npm run -s jepsen --lock=etcd -- --help`. */
const LOG = `0 verbose cli /usr/bin/node /usr/bin/npm
4 warn Expanding --lock to --lockfile-version. This will stop working in the next major version of npm.
10 verbose title npm run jepsen --help
11 verbose argv "run" "--loglevel" "silent" "jepsen" "--lock" "etcd" "--" "--help"
16 verbose cwd /home/me/fencepost
`;

describe('options npm swallowed', () => {
  it('are read from the environment, where npm exports an option it does not know', () => {
    const env = { npm_lifecycle_event: 'jepsen', npm_config_time_limit: '10', npm_config_fencing: 'true' };
    expect(swallowedByNpm(env, null, NAMES)).toEqual(['--time-limit=10', '--fencing']);
    // Outside an npm script nothing is npm's.
    expect(swallowedByNpm({ npm_config_time_limit: '10' }, null, NAMES)).toEqual([]);
  });

  it("and from npm's own argv, for one it took as its own (--lock → --lockfile-version, value dropped)", () => {
    const argv = argvOfNpmLog(LOG, 'jepsen', '/home/me/fencepost');
    expect(argv).toEqual(['run', '--loglevel', 'silent', 'jepsen', '--lock', 'etcd', '--', '--help']);
    expect(swallowedByNpm({ npm_lifecycle_event: 'jepsen' }, argv, NAMES)).toEqual(['--lock=etcd']);
    // npm's own options and everything after `--` are not fencepost's loss.
    expect([...npmOptions(argv!, 'jepsen').keys()]).toEqual(['loglevel', 'lock']);
    expect(npmOptions(['run', 'jepsen', '--', '--lock=etcd'], 'jepsen').size).toBe(0);
    expect(npmOptions(['run', '--fencing', 'jepsen'], 'jepsen').get('fencing')).toBe('--fencing');
  });

  it("takes a log only when it is this script's, typed in this folder", () => {
    expect(argvOfNpmLog(LOG, 'test', '/home/me/fencepost')).toBeNull();
    expect(argvOfNpmLog(LOG, 'jepsen', '/elsewhere')).toBeNull();
    // npm writes its log as it goes: the cwd line may not be there yet when the script starts.
    expect(argvOfNpmLog(LOG.replace(/^16 .*\n/m, ''), 'jepsen', '/elsewhere')).not.toBeNull();
  });

  it('reads the first log npm began after it started, not an older one of the same script', () => {
    const logs = path.join(scratch, '_logs');
    fs.mkdirSync(logs);
    fs.writeFileSync(path.join(logs, '2026-12-04T13_58_41_981Z-debug-0.log'), LOG);
    fs.writeFileSync(
      path.join(logs, '2026-12-04T13_59_00_010Z-debug-0.log'),
      LOG.replace('"--lock" "etcd" ', '').replace('16 verbose cwd /home/me/fencepost\n', ''),
    );
    expect(npmLogTime('2026-12-04T13_58_41_981Z-debug-0.log')).toBe(Date.parse('2026-12-04T13:58:41.981Z'));
    const env = { npm_lifecycle_event: 'jepsen', npm_config_cache: scratch, INIT_CWD: '/home/me/fencepost' };
    expect(npmCommandLine(env, Date.parse('2026-12-04T13:58:41.800Z'))).toContain('etcd');
    expect(npmCommandLine(env, Date.parse('2026-12-04T13:58:59.900Z'))).not.toContain('etcd');
    expect(npmCommandLine(env, Date.parse('2026-12-04T14:30:00.000Z'))).toBeNull();
  });

  // The audit's trap: `npm run jepsen --lock=etcd` ran the default lock, redlock, for 60 s without a word.
  it('makes `npm run jepsen --lock=etcd` warn, naming the command to type', async () => {
    const r = await promisify(execFile)('npm', ['run', '-s', 'jepsen', '--lock=etcd', '--', '--help'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toContain('fencepost: warning: npm took --lock=etcd for itself');
    expect(r.stderr).toContain('→ npm run jepsen -- --lock=etcd --help');
    expect(r.stdout).toMatch(/^fencepost — /);
  });
});
