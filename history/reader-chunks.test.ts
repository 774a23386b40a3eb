import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseHistory, parseHistoryTolerant } from './codec.ts';
import { readHistory, readHistoryTolerant } from './reader.ts';

/**
 * A history file is read in chunks, never as one string (V8 cannot make one past 512 MiB, and a day-long run writes
 * more): whatever the chunk size, reading a file gives what parsing its text gives — same ops, same truncated tail,
 * same error at the same line — with characters split across chunks intact.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-history-chunks-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const op = (index: number, value: unknown = 1) =>
  JSON.stringify({ index, time: index * 10, process: 0, type: 'ok', f: 'write', value });

const texts: Record<string, string> = {
  plain: `${op(0)}\n${op(1)}\n${op(2)}\n`,
  'no final newline': `${op(0)}\n${op(1)}`,
  'cut-off last line': `${op(0)}\n${op(1)}\n{"index":2,"ti`,
  'non-ASCII across chunks': `${op(0, 'été — 雪 🧊')}\n${op(1, '🧊🧊🧊')}\n`,
  'blank lines and CRLF': `\n${op(0)}\r\n\r\n${op(1)}\r\n\n\n`,
  'bad line in the middle': `${op(0)}\nnot json\n${op(1)}\n`,
  'not an op': `${op(0)}\n[1,2]\n${op(1)}\n`,
  empty: '',
};

function outcome(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (err) {
    return { threw: (err as Error).message };
  }
}

describe('reading history.jsonl in chunks', () => {
  for (const [name, text] of Object.entries(texts)) {
    it(`${name}: the same as parsing the whole text, at every chunk size`, () => {
      const file = path.join(dir, `${name.replace(/\W/g, '_')}.jsonl`);
      fs.writeFileSync(file, text);
      const strict = outcome(() => parseHistory(text));
      const tolerant = outcome(() => parseHistoryTolerant(text));
      for (const chunk of [1, 2, 3, 7, 64, 1 << 20]) {
        expect({ chunk, got: outcome(() => readHistory(file, chunk)) }).toEqual({ chunk, got: strict });
        expect({ chunk, got: outcome(() => readHistoryTolerant(file, chunk)) }).toEqual({ chunk, got: tolerant });
      }
    });
  }
});
