import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMatrixJson } from './matrix-json.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-matrix-json-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readMatrixJson', () => {
  it("reads an older matrix.json in today's shape, and today's as written", () => {
    const file = path.join(dir, 'matrix.json');
    const cell = { lock: 'redis', fault: 'pause-holder', fencing: false, runDir: 'r', expected: 'lost' };
    const today = { ...cell, lock: 'etcd', table: 'remedies', decided: 'construction' };
    fs.writeFileSync(file, JSON.stringify([cell, today]));
    expect(readMatrixJson(file)).toEqual([{ ...cell, table: 'faults', decided: 'measured' }, today]);
  });
});
