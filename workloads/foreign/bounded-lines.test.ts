import { describe, expect, it } from 'vitest';
import { BoundedLines } from './bounded-lines.ts';

function split(maxBytes: number, chunks: (string | Buffer)[], end = true) {
  const lines: string[] = [];
  const overlong: string[] = [];
  const b = new BoundedLines(
    maxBytes,
    (l) => lines.push(l),
    (h) => overlong.push(h),
  );
  for (const c of chunks) b.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  if (end) b.end();
  return { lines, overlong };
}

describe('BoundedLines', () => {
  it('splits lines across chunks, keeps empty ones, drops a CR before the newline, ends a last unterminated line', () => {
    expect(split(100, ['{"id":1', ',"ok":true}\r\n\nab', 'c'])).toEqual({
      lines: ['{"id":1,"ok":true}', '', 'abc'],
      overlong: [],
    });
  });

  it('keeps a character whose bytes arrive in two chunks whole', () => {
    const e = Buffer.from('é\n');
    expect(split(100, [e.subarray(0, 1), e.subarray(1)]).lines).toEqual(['é']);
  });

  it('says a line is too long as soon as it grows past the limit — before its newline, which may never come', () => {
    const r = split(8, ['0123456789', 'x'.repeat(1000)], false);
    expect(r).toEqual({ lines: [], overlong: ['01234567'] });
  });

  it('drops the rest of an overlong line up to its newline, then reads the next line as usual', () => {
    expect(split(4, ['abcdefgh', 'ijk\nok\n'])).toEqual({ lines: ['ok'], overlong: ['abcd'] });
  });

  it('a line of exactly the limit is a line', () => {
    expect(split(4, ['abcd\n'])).toEqual({ lines: ['abcd'], overlong: [] });
  });
});
