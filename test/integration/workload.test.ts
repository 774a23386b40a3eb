import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Op } from '../../history/op.ts';
import { readHistory, validateHistory } from '../../history/reader.ts';
import { scriptedRun, type Script } from '../support/scripted-run.ts';
import { processesUnder, testResultsDir } from './processes.ts';

/**
 * Every strategy end to end against the real cluster, without faults: the baseline must lose updates, every lock
 * must not. By script (step-gated on the history), so each verdict holds every time and a run takes its boot and a
 * second: A holds the lock and has read, B asks for it — a lock keeps B out for half A's lease (the step is held,
 * B's section skipped) and A's write stands; the baseline lets B in at once, and B's write, based on a read from
 * before A's, erases A's. The free client loop is the subject elsewhere (cli.test.ts, stop-a-run.test.ts and the
 * nemesis files), where what it must show is certain.
 */
const results = testResultsDir('workload');

const CONTENDED: Script = {
  name: 'contended',
  steps: ['A acquire', 'A read', 'try B acquire', 'B read', 'A write', 'B write', 'A release', 'B release'],
};

/** Three sections one after another (A, B, A again): each write carries the token of its own acquire. */
const TAKING_TURNS: Script = {
  name: 'taking-turns',
  steps: [
    ...['A acquire', 'A read', 'A write', 'A release'],
    ...['B acquire', 'B read', 'B write', 'B release'],
    ...['A acquire', 'A read', 'A write', 'A release'],
  ],
};

const run = (script: Script, argv: string[]) => scriptedRun(script, [...argv, '--seed=11'], { results });

/** A's ok ops in the history, in order (client 0: no op of A ends unknown here, so it keeps its process id). */
const okOfA = (ops: Op[]) => ops.filter((o) => o.type === 'ok' && o.process === 0).map((o) => `A ${o.f}`);

afterAll(() => {
  expect(processesUnder(results)).toEqual([]);
  fs.rmSync(results, { recursive: true, force: true });
});

describe('bank workload, no faults', () => {
  it('none: lets B in, loses A’s update, names it, and exits 1', async () => {
    const r = await run(CONTENDED, ['--lock=none']);
    expect(r.record.followed, r.summary).toBe(true);
    expect(r.outcome.exitCode, r.summary).toBe(1);
    expect(r.outcome.results.lostUpdates).toBe(1);
    const [lost] = r.outcome.results.lostUpdateDetails;
    expect(lost.overwrittenBy.writeId).toBeGreaterThan(lost.lost.writeId);
    expect(lost.overwrittenBy.basedOn).toBeLessThan(lost.lost.writeId);
    expect(validateHistory(readHistory(path.join(r.outcome.runDir, 'history.jsonl')).ops)).toEqual([]);
    for (const f of ['test.json', 'results.json', 'history.jsonl', 'logs'])
      expect(fs.existsSync(path.join(r.outcome.runDir, f))).toBe(true);
    expect(fs.realpathSync(path.join(results, 'latest'))).toBe(fs.realpathSync(r.outcome.runDir));
  });

  // A lock keeps B out: `try B acquire` is held and B's section skipped. Postgres's lock is the version column
  // (exclusive: false): B is let in and reads, and its write, based on a version A's write moved on, is refused.
  const KEPT_OUT = ['done', 'done', 'held', 'held', 'done', 'held', 'done', 'held'];
  it.each([
    ['redis', KEPT_OUT],
    ['redlock', KEPT_OUT],
    ['redlock-npm', KEPT_OUT],
    ['etcd', KEPT_OUT],
    ['zookeeper', KEPT_OUT],
    ['postgres', ['done', 'done', 'done', 'done', 'done', 'held', 'done', 'done']],
  ])('%s: B kept out of A’s section (or its stale write refused), no lost updates, exit 0', async (lock, statuses) => {
    const r = await run(CONTENDED, [`--lock=${lock}`]);
    expect(r.record.followed, r.summary).toBe(true);
    expect(
      r.record.steps.map((s) => s.status),
      r.summary,
    ).toEqual(statuses);
    expect(r.outcome.results.lostUpdates).toBe(0);
    expect(r.outcome.exitCode, r.summary).toBe(0);
    expect(okOfA(r.ops)).toEqual(['A acquire', 'A read', 'A write', 'A release']);
    const test = JSON.parse(fs.readFileSync(path.join(r.outcome.runDir, 'test.json'), 'utf8'));
    expect(test.seed).toBe(11);
    expect(test.versions).toMatchObject({
      ioredis: expect.stringMatching(/^5\./),
      redlock: expect.stringMatching(/5\.0\.0-beta\.2/),
      pg: expect.stringMatching(/^8\./),
      postgres: expect.stringMatching(/^\d+\.\d+/),
    });
  });

  it.each(['etcd', 'zookeeper'])('%s with --fencing carries increasing tokens into the resource', async (lock) => {
    const r = await run(TAKING_TURNS, [`--lock=${lock}`, '--fencing']);
    expect(r.record.followed, r.summary).toBe(true);
    expect(r.outcome.exitCode, r.summary).toBe(0);
    const tokens = r.ops
      .filter((o) => o.f === 'write' && o.type === 'ok')
      .map((o) => BigInt((o.value as { token: string }).token));
    expect(tokens).toHaveLength(3);
    expect(tokens[0] < tokens[1] && tokens[1] < tokens[2], tokens.join(' < ')).toBe(true);
  });

  it('runs the plugin example of the docs (examples/my-lock.ts)', async () => {
    const r = await run(CONTENDED, ['--lock=./examples/my-lock.ts']);
    expect(r.outcome.exitCode, r.summary).toBe(0);
    expect(r.outcome.runDir).toContain(`${path.sep}plugin-my-lock${path.sep}`);
    expect(okOfA(r.ops)).toEqual(['A acquire', 'A read', 'A write', 'A release']);
    // The example declares `servers: { redis: 1 }` (it uses ctx.redis[0] alone): one Redis node boots, not five.
    const test = JSON.parse(fs.readFileSync(path.join(r.outcome.runDir, 'test.json'), 'utf8'));
    expect(test.strategy.servers).toEqual({ redis: 1, etcd: 0, zk: 0 });
    expect(test.nodes.map((n: { name: string }) => n.name).filter((n: string) => n.startsWith('redis'))).toEqual([
      'redis[0]',
    ]);
  });
});
