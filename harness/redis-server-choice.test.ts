import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../cli/command-line.ts';
import { HarnessError } from '../common/errors.ts';
import { BOOKWORM_BACKPORTS, candidateOf, installCommand, provision, REQUIREMENTS } from '../cluster/provision.ts';
import { resolveConfig } from './run-argv.ts';
import { refuseRedisServer, withRedisServer } from './redis-server-choice.ts';

function refusal(fn: () => unknown): HarnessError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    return err as HarnessError;
  }
  throw new Error('expected a refusal');
}

describe('--redis-server', () => {
  it('is redis unless given, valkey when asked, and nothing else', () => {
    expect(resolveConfig([], () => 1).redisServer).toBe('redis');
    expect(resolveConfig(['--lock=redis', '--redis-server=valkey'], () => 1).redisServer).toBe('valkey');
    expect(refusal(() => parseCommandLine(['--redis-server=keydb'])).message).toMatch(/must be one of redis, valkey/);
  });

  it("makes a Redis lock's need valkey-server instead of redis-server, and leaves the other servers alone", () => {
    expect(withRedisServer(['pg', 'redis', 'cc'], { redisServer: 'valkey' })).toEqual(['pg', 'valkey', 'cc']);
    expect(withRedisServer(['pg', 'redis'], { redisServer: 'redis' })).toEqual(['pg', 'redis']);
    expect(withRedisServer(['pg', 'etcd'], { redisServer: 'valkey' })).toEqual(['pg', 'etcd']);
  });

  it('is refused on the docker backend and against a target, whose servers are not the harness’s to choose', () => {
    const local = { redisServer: 'valkey', backend: 'local', target: null } as const;
    expect(() => refuseRedisServer(local)).not.toThrow();
    expect(refusal(() => refuseRedisServer({ ...local, backend: 'docker' })).message).toMatch(
      /local backend only: the docker node image has bookworm's redis-server/,
    );
    expect(refusal(() => refuseRedisServer({ ...local, target: '/t/target.json' })).message).toMatch(
      /a --target's servers are its own/,
    );
    expect(() => refuseRedisServer({ ...local, redisServer: 'redis', backend: 'docker' })).not.toThrow();
  });
});

describe('valkey-server missing', () => {
  const path0 = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path0;
  });

  it('names the backports source line before the install, never the bare package', () => {
    expect(installCommand([REQUIREMENTS.valkey])).toBe(
      [
        `echo '${BOOKWORM_BACKPORTS}' | sudo tee /etc/apt/sources.list.d/bookworm-backports.list`,
        'sudo apt-get update && sudo apt-get install -y valkey-server',
      ].join('\n  '),
    );
    expect(installCommand([REQUIREMENTS.redis])).toBe('sudo apt-get install -y redis-server');
  });

  it('is refused with exit 254 and that command where apt cannot install it', async () => {
    // An empty PATH: no valkey-server, and no apt-get to install it with.
    process.env.PATH = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-empty-path-'));
    const err = await provision(['valkey'], () => {}).catch((e: unknown) => e);
    fs.rmdirSync(process.env.PATH);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    expect((err as HarnessError).message).toBe('missing: valkey-server (for --redis-server=valkey).');
    expect((err as HarnessError).hint).toContain(BOOKWORM_BACKPORTS);
    expect((err as HarnessError).hint).toContain('sudo apt-get install -y valkey-server');
  });

  it("reads apt's candidate: a version, or none when no source of the machine has the package", () => {
    const policy = (candidate: string) => `valkey-server:\n  Installed: (none)\n  Candidate: ${candidate}\n`;
    expect(candidateOf(policy('8.0.1+dfsg1-1~bpo12+1'))).toBe('8.0.1+dfsg1-1~bpo12+1');
    expect(candidateOf(policy('(none)'))).toBeNull();
    expect(candidateOf('')).toBeNull();
  });
});
