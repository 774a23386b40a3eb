import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../harness/run-argv.ts';
import { runTest } from '../../harness/run.ts';
import { readHistory, validateHistory } from '../../history/reader.ts';
import { Shutdown } from '../../common/shutdown.ts';
import { processesUnder, testResultsDir } from './processes.ts';

/**
 * Every strategy end to end against the real cluster, without faults: the baseline must lose updates, every
 * lock must not. Short runs: the point is that the whole pipeline works, not the statistics.
 */
const results = testResultsDir('workload');
const quiet = () => {};

async function run(argv: string[]) {
  const config = resolveConfig([...argv, '--time-limit=5', '--nemesis=none', `--results=${results}`, '--seed=11']);
  return runTest(config, new Shutdown(), quiet);
}

afterAll(() => {
  expect(processesUnder(results)).toEqual([]);
});

describe('bank workload, no faults', () => {
  it('none: loses updates, names them, and exits 1', async () => {
    const out = await run(['--lock=none']);
    expect(out.exitCode).toBe(1);
    expect(out.results.lostUpdates).toBeGreaterThan(0);
    const lost = out.results.lostUpdateDetails[0];
    expect(lost.overwrittenBy.writeId).toBeGreaterThan(lost.lost.writeId);
    expect(lost.overwrittenBy.basedOn).toBeLessThan(lost.lost.writeId);
    const { ops } = readHistory(path.join(out.runDir, 'history.jsonl'));
    expect(validateHistory(ops)).toEqual([]);
    for (const f of ['test.json', 'results.json', 'history.jsonl', 'logs'])
      expect(fs.existsSync(path.join(out.runDir, f))).toBe(true);
    expect(fs.realpathSync(path.join(results, 'latest'))).toBe(fs.realpathSync(out.runDir));
  });

  it.each(['redis', 'redlock', 'redlock-npm', 'etcd', 'zookeeper', 'postgres'])(
    '%s: no lost updates, exit 0',
    async (lock) => {
      const out = await run([`--lock=${lock}`]);
      expect(out.results.lostUpdates).toBe(0);
      expect(out.results.opCounts.ok).toBeGreaterThan(20);
      expect(out.results.latency.acquire.count).toBeGreaterThan(5);
      expect(out.exitCode, JSON.stringify(out.results.checkers)).toBe(0);
      const test = JSON.parse(fs.readFileSync(path.join(out.runDir, 'test.json'), 'utf8'));
      expect(test.seed).toBe(11);
      expect(test.versions).toMatchObject({
        ioredis: expect.stringMatching(/^5\./),
        redlock: expect.stringMatching(/5\.0\.0-beta\.2/),
        pg: expect.stringMatching(/^8\./),
        postgres: expect.stringMatching(/^\d+\.\d+/),
      });
    },
  );

  it('etcd and zookeeper with --fencing carry increasing tokens into the resource', async () => {
    for (const lock of ['etcd', 'zookeeper']) {
      const out = await run([`--lock=${lock}`, '--fencing']);
      expect(out.exitCode).toBe(0);
      const { ops } = readHistory(path.join(out.runDir, 'history.jsonl'));
      const tokens = ops
        .filter((o) => o.f === 'write' && o.type === 'ok')
        .map((o) => BigInt((o.value as { token: string }).token));
      expect(tokens.length).toBeGreaterThan(5);
      for (let i = 1; i < tokens.length; i++) expect(tokens[i] > tokens[i - 1]).toBe(true);
    }
  });

  it('runs the plugin example of the docs (examples/my-lock.ts)', async () => {
    const out = await run(['--lock=./examples/my-lock.ts']);
    expect(out.exitCode).toBe(0);
    expect(out.runDir).toContain(`${path.sep}plugin-my-lock${path.sep}`);
    expect(out.results.opCounts.ok).toBeGreaterThan(20);
    // The example declares `servers: { redis: 1 }` (it uses ctx.redis[0] alone): one Redis node boots, not five.
    const test = JSON.parse(fs.readFileSync(path.join(out.runDir, 'test.json'), 'utf8'));
    expect(test.strategy.servers).toEqual({ redis: 1, etcd: 0, zk: 0 });
    expect(test.nodes.map((n: { name: string }) => n.name).filter((n: string) => n.startsWith('redis'))).toEqual([
      'redis[0]',
    ]);
  });
});
