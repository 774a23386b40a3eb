import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Journal } from './journal.ts';
import type { Op } from './op.ts';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function journal(): Journal {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-journal-'));
  dirs.push(dir);
  return new Journal(path.join(dir, 'history.jsonl'), 0n);
}

const lines = (j: Journal) =>
  fs
    .readFileSync(j.file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Op);

describe('Journal.batch: ops that arrive together, one write', () => {
  it('writes a batch with one write(2), then tells the listeners each op in order, each already on disk', () => {
    const j = journal();
    const seen: { index: number; onDisk: number }[] = [];
    j.onOp((op) => seen.push({ index: op.index, onDisk: lines(j).length }));
    const writes = vi.spyOn(fs, 'writeSync');
    j.batch(() => {
      j.appendStamped({ process: 0, type: 'invoke', f: 'acquire', value: { account: 0 } }, 10n);
      j.appendStamped({ process: 0, type: 'ok', f: 'acquire', value: { account: 0 } }, 20n);
      expect(seen).toEqual([]); // nothing announced before it is written
    });
    expect(writes).toHaveBeenCalledTimes(1);
    expect(seen).toEqual([
      { index: 0, onDisk: 2 },
      { index: 1, onDisk: 2 },
    ]);
    expect(lines(j).map((o) => [o.index, o.time, o.type])).toEqual([
      [0, 10, 'invoke'],
      [1, 20, 'ok'],
    ]);
  });

  it('joins a nested batch to the outer one, writes what was appended when fn throws, and appends alone outside', () => {
    const j = journal();
    const writes = vi.spyOn(fs, 'writeSync');
    expect(() =>
      j.batch(() => {
        j.append({ process: 1, type: 'invoke', f: 'read', value: null });
        j.batch(() => j.append({ process: 1, type: 'ok', f: 'read', value: null }));
        throw new Error('a listener of ours failed');
      }),
    ).toThrow('a listener of ours failed');
    expect(writes).toHaveBeenCalledTimes(1);
    j.append({ process: 'nemesis', type: 'info', f: 'start', value: null });
    expect(writes).toHaveBeenCalledTimes(2);
    expect(lines(j).map((o) => o.index)).toEqual([0, 1, 2]);
  });
});
