import { describe, expect, it } from 'vitest';
import { serverEnvironment } from './process-host.ts';

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
