import { describe, expect, it } from 'vitest';
import { inCgroup, serverEnvironment } from './process-host.ts';

describe('serverEnvironment', () => {
  const harness = {
    PATH: '/usr/local/bin:/usr/bin',
    HOME: '/root',
    LANG: 'de_DE.UTF-8',
    ETCD_QUOTA_BACKEND_BYTES: '1',
    JAVA_TOOL_OPTIONS: '-javaagent:/tmp/a.jar',
    LD_LIBRARY_PATH: '/tmp/lib',
    GITHUB_TOKEN: 'ghp_x',
    PGPASSWORD: 'p',
  };

  it("passes PATH, a fixed locale, the account's HOME and the node's own variables, nothing else", () => {
    expect(
      serverEnvironment(harness, '/var/lib/etcd', { LD_PRELOAD: '/run/clock.so', FAKETIME_FILE: '/run/o' }),
    ).toEqual({
      PATH: '/usr/local/bin:/usr/bin',
      LANG: 'C.UTF-8',
      HOME: '/var/lib/etcd',
      LD_PRELOAD: '/run/clock.so',
      FAKETIME_FILE: '/run/o',
    });
  });

  it("uses the harness's HOME when the server runs as the harness's user, and a default PATH when there is none", () => {
    expect(serverEnvironment({ HOME: '/home/me' }, undefined, {})).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      HOME: '/home/me',
    });
  });
});

describe('inCgroup', () => {
  it('a root shell joins the cgroup, drops to the account with setpriv, and execs the server (same pid)', () => {
    const r = inCgroup(
      '/sys/fs/cgroup/unified/fencepost-x/etcd0',
      { file: 'etcd', args: ['--name', 'etcd0'] },
      {
        uid: 107,
        gid: 112,
        home: '/var/lib/etcd',
      },
    );
    expect(r).toEqual({
      file: '/bin/sh',
      args: [
        '-c',
        'echo $$ > "$0/cgroup.procs" && exec "$@"',
        '/sys/fs/cgroup/unified/fencepost-x/etcd0',
        'setpriv',
        '--reuid=107',
        '--regid=112',
        '--clear-groups',
        '--',
        'etcd',
        '--name',
        'etcd0',
      ],
      asAccount: undefined,
    });
    // Not root: no account to drop to, the server runs as the harness's user.
    expect(inCgroup('/cg', { file: 'redis-server', args: [] }, undefined).args).toEqual([
      '-c',
      'echo $$ > "$0/cgroup.procs" && exec "$@"',
      '/cg',
      'redis-server',
    ]);
  });
});
