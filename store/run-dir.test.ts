import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createRunDir,
  hasResults,
  isRunDir,
  listRunDirs,
  readResults,
  readRun,
  readRunHistory,
  readTest,
  RUN_FILES,
  runLogFile,
  runPath,
  writeResults,
  writeTest,
} from './run-dir.ts';
import type { StoredTestJson } from './test-json.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { history, invoke, ok } from '../test/support/test-history.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-run-dir-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const jsonl = (ops: object[]) => ops.map((o) => JSON.stringify(o)).join('\n') + '\n';
const test = {
  lock: 'redlock',
  strategy: { name: 'redlock', token: 'none', exclusive: true },
  argv: ['--lock=redlock', '--seed=42'],
  seed: 42,
  startedAt: '2026-12-01T10:00:00.000Z',
  faults: ['pause-holder'],
  config: { lock: 'redlock', fencing: false, ttlMs: 2000 },
  versions: { ioredis: '5.0.0' },
  nodes: [{ name: 'redis-1', port: 6379 }],
} as unknown as StoredTestJson;

describe('the run directory', () => {
  it('names its files as they are on disk (what users, CI scripts and older runs know)', () => {
    expect(RUN_FILES).toMatchObject({
      test: 'test.json',
      history: 'history.jsonl',
      results: 'results.json',
      report: 'report.html',
      logs: 'logs',
      nodes: 'nodes',
      pids: 'pids',
    });
    expect(runPath('/r/redlock/t', 'results')).toBe('/r/redlock/t/results.json');
    expect(runLogFile('/r/redlock/t', 'client-3')).toBe('/r/redlock/t/logs/client-3.log');
  });

  it('is created with its logs folder and owner record, under results/<lock>/, and found again newest first', () => {
    const results = path.join(root, 'list');
    const older = createRunDir(results, 'redlock', new Date('2026-12-01T10:00:00Z'));
    const newer = createRunDir(results, './plugins/my-lock.ts', new Date('2026-12-01T11:00:00Z'));
    expect(path.relative(results, older)).toBe(path.join('redlock', '2026-12-01T10-00-00.000Z'));
    expect(path.relative(results, newer)).toBe(path.join('plugin-my-lock', '2026-12-01T11-00-00.000Z'));
    expect(fs.statSync(runPath(older, 'logs')).isDirectory()).toBe(true);
    expect(fs.readdirSync(runPath(older, 'pids'))).not.toHaveLength(0);
    // Not a run dir until it holds a test record.
    expect(isRunDir(older)).toBe(false);
    expect(listRunDirs(results)).toEqual([]);
    writeTest(older, test);
    writeTest(newer, test);
    expect(listRunDirs(results)).toEqual([newer, older]);
  });

  it('writes the test record owner-only and reads it back, tolerantly', () => {
    const dir = createRunDir(path.join(root, 'test'), 'redlock');
    writeTest(dir, test);
    expect(fs.statSync(runPath(dir, 'test')).mode & 0o777).toBe(0o600);
    expect(readTest(dir)).toMatchObject({ lock: 'redlock', seed: 42, faults: ['pause-holder'], token: 'none' });
    const problems: string[] = [];
    fs.rmSync(runPath(dir, 'test'));
    // A missing record: the lock from the folder name, and the problem said.
    expect(readTest(dir, problems)).toMatchObject({ lock: 'redlock', seed: null, faults: null });
    expect(problems).toEqual(['test.json is missing']);
  });

  it('has results once they are written; unreadable results read as none, with why', () => {
    const dir = createRunDir(path.join(root, 'results'), 'etcd');
    expect(hasResults(dir)).toBe(false);
    writeResults(dir, { valid: false, lostUpdates: 3, big: 2n } as unknown as RunResults);
    expect(hasResults(dir)).toBe(true);
    expect(readResults(dir)).toMatchObject({ valid: false, lostUpdates: 3, big: '2' });
    fs.writeFileSync(runPath(dir, 'results'), '{"valid": tru');
    const problems: string[] = [];
    expect(readResults(dir, problems)).toEqual({});
    expect(problems[0]).toMatch(/^results\.json is not valid JSON/);
  });

  it('reads the history strictly as a History (paired), and tolerantly for pages', () => {
    const dir = createRunDir(path.join(root, 'history'), 'zookeeper');
    const ops = history(invoke(0, 'acquire'), ok(0, 'acquire'), invoke(1, 'acquire'));
    fs.writeFileSync(runPath(dir, 'history'), jsonl(ops) + '{"index": 3, "ti');
    const strict = readRunHistory(dir);
    expect(strict.truncatedTail).toBe(true);
    expect(strict.history.ops).toHaveLength(3);
    expect(strict.history.pairs).toHaveLength(2);
    expect(strict.history.openInvokes.map((o) => o.process)).toEqual([1]);

    fs.writeFileSync(runPath(dir, 'history'), `${JSON.stringify(ops[0])}\nnot json\n${JSON.stringify(ops[1])}\n`);
    expect(() => readRunHistory(dir)).toThrow();
    const page = readRun(dir);
    expect(page.history.ops).toHaveLength(2);
    // Line 2 is bad; the test record and results are missing: every problem is said, in the file order.
    expect(page.problems).toEqual([
      'history.jsonl: 1 malformed line(s) skipped (line 2)',
      'results.json is missing',
      'test.json is missing',
    ]);
    expect(readRun(dir, { withHistory: false }).history.ops).toHaveLength(0);
  });
});
