import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPath } from '../store/run-dir.ts';
import { mergeServers, nightServers, serverChanges, serversLine } from './night-servers.ts';
import type { NightlyResult } from './nightly-result.ts';
import { renderComparison } from './nightly-comparison.ts';
import { renderSummary } from './nightly-summary.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-night-servers-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A run folder whose test record holds `versions` (as start-servers.ts writes them, beside the libraries'). */
function runWith(name: string, versions: Record<string, string>): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(runPath(dir, 'test'), JSON.stringify({ argv: [], seed: 1, config: {}, versions, lock: 'redis' }));
  return dir;
}

const night = (servers?: Record<string, string>): NightlyResult =>
  ({
    version: 1,
    seed: 1,
    shard: null,
    settings: [],
    command: 'nightly',
    startedAt: '2026-12-06T01:00:00.000Z',
    wallMs: 1,
    expectationsFile: null,
    cells: [],
    ...(servers ? { servers } : {}),
  }) as NightlyResult;

describe("a night's servers", () => {
  it("are its runs' server versions, not their libraries', each version once", () => {
    const a = runWith('a', { node: 'v20.19.0', ioredis: '5.4.1', 'valkey-server': '8.0.1', postgres: '15.20' });
    const b = runWith('b', { 'valkey-server': '8.0.1', etcd: '3.4.23', postgres: '15.20' });
    expect(nightServers([a, b, '', path.join(tmp, 'gone')])).toEqual({
      etcd: '3.4.23',
      postgres: '15.20',
      'valkey-server': '8.0.1',
    });
    expect(mergeServers([{ 'redis-server': '7.0.15' }, { 'redis-server': '7.2.4, 7.0.15' }, undefined])).toEqual({
      'redis-server': '7.0.15, 7.2.4',
    });
  });

  it('a Valkey night against a Redis baseline says so in the summary and on the comparison page', () => {
    const valkey = night({ postgres: '15.20', 'valkey-server': '8.0.1' });
    const redis = night({ postgres: '15.20', 'redis-server': '7.0.15' });
    expect(serversLine(valkey.servers)).toBe('postgres 15.20, valkey-server 8.0.1');
    expect(serverChanges(valkey.servers, redis.servers)).toEqual([
      'redis-server 7.0.15 in the baseline, not tonight',
      'valkey-server 8.0.1 tonight, not in the baseline',
    ]);
    expect(renderSummary(valkey, '.', redis)).toContain(
      "**Not the baseline's servers**: redis-server 7.0.15 in the baseline, not tonight; valkey-server 8.0.1 tonight, not in the baseline.",
    );
    const page = renderComparison(valkey, redis, { tonightDir: tmp, baselineDir: tmp, outDir: tmp });
    expect(page).toContain(
      'Servers tonight: postgres 15.20, valkey-server 8.0.1. Baseline: postgres 15.20, redis-server 7.0.15.',
    );
    expect(page).toContain("Not the baseline's servers");
  });

  it('says nothing of a change between the same servers, or against a night that recorded none', () => {
    const redis = night({ 'redis-server': '7.0.15' });
    expect(renderSummary(redis, '.', night({ 'redis-server': '7.0.15' }))).not.toContain('Not the baseline');
    expect(serverChanges(redis.servers, undefined)).toEqual([]);
    expect(serversLine(undefined)).toBe('unknown');
  });
});
