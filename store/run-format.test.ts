import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { readResults, readTest, readTestRaw, runPath, writeResults, writeTest } from './run-dir.ts';
import { RUN_FORMAT } from './run-format.ts';
import type { StoredTestJson } from './test-json.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-format-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
/** A run written by fencepost at c81806f, before the format number (its SOURCE.md says how it was made). */
const STORED = path.join(import.meta.dirname, '../test/fixtures/runs/curator-paused-holder-story-less');

function copyOfStored(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  for (const f of ['test.json', 'results.json', 'history.jsonl'])
    fs.copyFileSync(path.join(STORED, f), path.join(dir, f));
  return dir;
}

function caught(f: () => unknown): HarnessError {
  try {
    f();
  } catch (err) {
    if (err instanceof HarnessError) return err;
    throw err;
  }
  throw new Error('expected a HarnessError, nothing was thrown');
}

describe('the run format', () => {
  it('reads a stored run from before the number as format 0, every field as it was', () => {
    const dir = copyOfStored('stored');
    const raw = JSON.parse(fs.readFileSync(runPath(dir, 'test'), 'utf8')) as Record<string, unknown>;
    expect(raw.format).toBeUndefined();
    const problems: string[] = [];
    expect(readTestRaw(dir, problems)).toEqual({ ...raw, format: 0 });
    expect(readTest(dir)).toMatchObject({ lock: 'curator', seed: 613664306, faults: ['pause-holder'] });
    expect(readResults(dir, problems)).toMatchObject({ format: 0, valid: true, lostUpdates: 0 });
    expect(problems).toEqual([]);
  });

  it('writes this code’s format into the test record and the results', () => {
    const dir = copyOfStored('rewritten');
    const test = readTestRaw(dir) as StoredTestJson;
    writeTest(dir, { ...test, format: RUN_FORMAT });
    writeResults(dir, readResults(dir) as RunResults);
    for (const f of ['test', 'results'] as const)
      expect(JSON.parse(fs.readFileSync(runPath(dir, f), 'utf8'))).toMatchObject({ format: RUN_FORMAT });
  });

  it.each(['test', 'results'] as const)(
    'refuses a %s file of a newer format, naming it and what to do (exit 254), rather than misread it',
    (f) => {
      const dir = copyOfStored(`newer-${f}`);
      const file = runPath(dir, f);
      const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(file, JSON.stringify({ ...raw, format: RUN_FORMAT + 1 }));
      const err = caught(() => (f === 'test' ? readTest(dir) : readResults(dir)));
      expect(err.kind).toBe('bad-arguments');
      expect(err.exitCode).toBe(254);
      expect(err.message).toBe(
        `${file} has format ${RUN_FORMAT + 1}, newer than this fencepost reads (up to ${RUN_FORMAT}): it was written by a newer fencepost.`,
      );
      expect(err.hint).toMatch(/update this one/);
    },
  );

  it.each([-1, 1.5, '1', null])('refuses format %j, which is no format number', (format) => {
    const dir = copyOfStored(`odd-${String(format)}`);
    fs.writeFileSync(runPath(dir, 'test'), JSON.stringify({ format, lock: 'curator' }));
    expect(caught(() => readTestRaw(dir)).message).toMatch(/has format .+, which is not a format number/);
  });
});
