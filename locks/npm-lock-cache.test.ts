import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import {
  fencepostCacheDir,
  installNpmLock,
  npmFailureWords,
  npmLockDir,
  npmLockInstalled,
  npmLockOf,
  npmLockRequire,
  pinnedPackages,
  removeStaleInstalls,
  STALE_INSTALL_MS,
} from './npm-lock-cache.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-npm-cache-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the npm lock rows’ per-machine cache', () => {
  it('lives where the Go and Java rows cache their builds, and names each install for its lockfile', () => {
    expect(fencepostCacheDir({ FENCEPOST_CACHE_DIR: '/x/c' })).toBe('/x/c');
    expect(fencepostCacheDir({ XDG_CACHE_HOME: '/x/xdg' })).toBe('/x/xdg/fencepost');
    const dir = npmLockDir('redlock-v4', { FENCEPOST_CACHE_DIR: '/x/c' });
    expect(dir).toMatch(/^\/x\/c\/npm\/redlock-v4-[0-9a-f]{16}$/);
    expect(npmLockDir('redlock-v4', { FENCEPOST_CACHE_DIR: '/x/c' })).toBe(dir);
    expect(pinnedPackages('redlock-v4')).toEqual(['redlock@4.2.0', 'ioredis@6.1.0']);
    expect(npmLockOf('redis-semaphore-redlock')).toBe('redis-semaphore-redlock');
    expect(npmLockOf('etcd3-lock')).toBeNull();
    expect(npmLockOf('redis')).toBeNull();
  });

  it('does not install again what is installed: no npm, no line', async () => {
    const env = { FENCEPOST_CACHE_DIR: path.join(tmp, 'warm'), npm_config_registry: 'http://127.0.0.1:9/' };
    fs.mkdirSync(path.join(npmLockDir('redis-lock', env), 'node_modules'), { recursive: true });
    expect(npmLockInstalled('redis-lock', env)).toBe(true);
    const lines: string[] = [];
    await installNpmLock('redis-lock', 'redis-lock', (l) => lines.push(l), env);
    expect(lines).toEqual([]);
  });

  it('a registry it cannot reach is exit 254 naming the packages and the registry, with nothing left in the cache', async () => {
    const cache = path.join(tmp, 'cold');
    const env = {
      ...process.env,
      FENCEPOST_CACHE_DIR: cache,
      npm_config_registry: 'http://127.0.0.1:9/',
      // An empty npm cache too: npm would otherwise install from its own copies without asking the registry.
      npm_config_cache: path.join(tmp, 'npm-cache'),
    };
    const lines: string[] = [];
    const err = await installNpmLock('redlock-v4', 'redlock-v4', (l) => lines.push(l), env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    expect((err as HarnessError).message).toMatch(
      /^--lock=redlock-v4 needs redlock@4\.2\.0, ioredis@6\.1\.0, which are not in the cache yet, and installing them from http:\/\/127\.0\.0\.1:9\/ failed: request to http:\/\/127\.0\.0\.1:9\/.* failed, reason: connect ECONNREFUSED 127\.0\.0\.1:9/,
    );
    expect(lines[0]).toMatch(
      /^fencepost: --lock=redlock-v4: installing redlock@4\.2\.0, ioredis@6\.1\.0 into .* \(once per machine\) …$/,
    );
    expect(npmLockInstalled('redlock-v4', env)).toBe(false);
    expect(fs.readdirSync(path.join(cache, 'npm'))).toEqual([]);
  }, 60_000);

  it('refuses a cache that others can write: their node_modules would run as us (R13), and says what to do', async () => {
    const cache = path.join(tmp, 'shared');
    const env = { FENCEPOST_CACHE_DIR: cache, npm_config_registry: 'http://127.0.0.1:9/' };
    const planted = path.join(npmLockDir('redis-lock', env), 'node_modules');
    fs.mkdirSync(planted, { recursive: true });
    fs.chmodSync(cache, 0o777);
    const err = await installNpmLock('redis-lock', 'redis-lock', () => {}, env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    expect((err as HarnessError).message).toContain(`${cache} is writable by every user (mode 777)`);
    expect((err as HarnessError).hint).toContain('chmod go-w');
    expect(() => npmLockRequire('redis-lock', env)).toThrow(/is writable by every user/);
    fs.chmodSync(cache, 0o700);
    await installNpmLock('redis-lock', 'redis-lock', () => {}, env);
    if (process.getuid?.() === 0) {
      // As root the audit's case itself: a tree another user made.
      fs.chownSync(path.dirname(planted), 65534, 65534);
      const other = await installNpmLock('redis-lock', 'redis-lock', () => {}, env).catch((e: unknown) => e);
      expect((other as HarnessError).message).toContain('belongs to uid 65534, not to us');
    }
  });

  it('removes an interrupted install’s temporary tree once it is older than any install can take (R19)', () => {
    const root = path.join(tmp, 'stale', 'npm');
    const old = path.join(root, '.install-redis-lock-AbC123');
    const fresh = path.join(root, '.install-redis-lock-XyZ789');
    for (const d of [old, fresh]) fs.mkdirSync(path.join(d, 'node_modules'), { recursive: true });
    const when = new Date(Date.now() - STALE_INSTALL_MS - 60_000);
    fs.utimesSync(old, when, when);
    removeStaleInstalls(root);
    expect(fs.readdirSync(root)).toEqual(['.install-redis-lock-XyZ789']);
  });

  it("keeps npm's own reason: the failed request, else its error code", () => {
    expect(
      npmFailureWords(
        'npm error code ECONNREFUSED\nnpm error FetchError: request to http://r/x failed, reason: connect ECONNREFUSED\nnpm error A complete log of this run can be found in: /x',
      ),
    ).toBe('request to http://r/x failed, reason: connect ECONNREFUSED');
    expect(
      npmFailureWords('npm error code E404\nnpm error 404 Not Found - GET http://r/nope\nnpm error A complete log'),
    ).toBe('code E404 | 404 Not Found - GET http://r/nope');
  });
});
