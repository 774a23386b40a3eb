import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readNightlyFiles } from './nightly-result.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-nightly-result-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cell = {
  index: 0,
  lock: 'redis',
  fault: 'pause-holder',
  fencing: false,
  from: 'oracle',
  runDir: 'r',
  expected: 'lost',
  observed: 'lost',
  matched: true,
  lostUpdates: 1,
  staleWritesRejected: 0,
  acquireP50: 1,
  acquireP99: 2,
};

describe('readNightlyFiles', () => {
  it("reads an older night's cells in today's shape: measured, an oracle cell in the fault table", () => {
    const user = { ...cell, index: 1, from: 'fencepost.expectations.json line 3' };
    const today = { ...cell, index: 2, table: 'remedies', decided: 'construction' };
    const night = { version: 1, seed: 1, shard: null, settings: [], command: 'x', startedAt: 'y', wallMs: 5 };
    fs.writeFileSync(
      path.join(dir, 'nightly.json'),
      JSON.stringify({ ...night, expectationsFile: null, cells: [cell, user, today] }),
    );
    const [{ result }] = readNightlyFiles(dir);
    expect(result.cells).toEqual([
      { ...cell, table: 'faults', decided: 'measured' },
      { ...user, decided: 'measured' },
      today,
    ]);
  });
});
