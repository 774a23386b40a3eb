import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LaunchRequest, NodeHost } from '../node-host.ts';
import { RedisNode, serverOfInfo, type RedisServerKind } from './redis-node.ts';

/** `INFO server` as each answered on this machine (trimmed), CRLF as on the wire. */
const REDIS_7_INFO = ['# Server', 'redis_version:7.0.15', 'redis_git_sha1:00000000', 'redis_mode:standalone', ''].join(
  '\r\n',
);
const VALKEY_8_INFO = [
  '# Server',
  'redis_version:7.2.4',
  'server_name:valkey',
  'valkey_version:8.0.1',
  'valkey_git_sha1:00000000',
  'server_mode:standalone',
  '',
].join('\r\n');

describe('serverOfInfo', () => {
  it("names Redis by redis_version and Valkey by its own name and version, not the Redis it reports for clients' sake", () => {
    expect(serverOfInfo(REDIS_7_INFO)).toEqual({ server: 'redis-server', version: '7.0.15' });
    expect(serverOfInfo(VALKEY_8_INFO)).toEqual({ server: 'valkey-server', version: '8.0.1' });
  });
});

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** What a node's start hands its host (the launch is refused: nothing runs), and the config file it wrote first. */
async function launchOf(server: RedisServerKind | undefined): Promise<{ req: LaunchRequest; config: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-redis-node-'));
  dirs.push(dir);
  const launched: LaunchRequest[] = [];
  const host = {
    launch: async (req: LaunchRequest) => {
      launched.push(req);
      throw new Error('not launched in a unit test');
    },
    account: () => undefined,
    canEnter: () => true,
    cancelSetups: () => {},
  } as unknown as NodeHost;
  const node = new RedisNode({
    name: 'redis[0]',
    kind: 'redis',
    port: 16379,
    dir: path.join(dir, 'node'),
    logFile: path.join(dir, 'node.log'),
    host,
    readyTimeoutMs: 1000,
    persistence: 'aof-always',
    password: 'pw',
    ...(server ? { server } : {}),
  });
  await expect(node.start()).rejects.toThrow('not launched in a unit test');
  const req = launched[0];
  return { req, config: fs.readFileSync(req.cmd.args[0], 'utf8') };
}

describe('RedisNode with --redis-server', () => {
  it('runs redis-server as redis by default, valkey-server as valkey for valkey', async () => {
    const redis = await launchOf(undefined);
    const valkey = await launchOf('valkey');
    expect({ file: redis.req.cmd.file, user: redis.req.cmd.user }).toEqual({ file: 'redis-server', user: 'redis' });
    expect({ file: valkey.req.cmd.file, user: valkey.req.cmd.user }).toEqual({ file: 'valkey-server', user: 'valkey' });
  });

  it('writes the same config for both: every key means the same to valkey-server 8.0', async () => {
    const redis = await launchOf('redis');
    const valkey = await launchOf('valkey');
    const lines = (text: string, dir: string) => text.replace(dir, '<dir>').split('\n');
    expect(lines(valkey.config, valkey.req.dir)).toEqual(lines(redis.config, redis.req.dir));
    expect(lines(valkey.config, valkey.req.dir)).toEqual([
      'port 16379',
      'bind 127.0.0.1',
      'protected-mode yes',
      'requirepass pw',
      'masterauth pw',
      'dir "<dir>/data"',
      'save ""',
      'repl-diskless-sync-delay 0',
      'appendonly yes',
      'appendfsync always',
      '',
    ]);
  });
});
