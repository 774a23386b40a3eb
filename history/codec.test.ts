import { describe, expect, it } from 'vitest';
import { describeBadLines, HistoryLineError, parseHistory, parseHistoryTolerant } from './codec.ts';

const line = (index: number) => JSON.stringify({ index, time: index * 10, process: 0, type: 'invoke', f: 'read' });

describe('history codec', () => {
  const text = [line(0), 'not json', '', '[1,2]', '{"index":3}', line(4), '{"index":5,"ti'].join('\n');

  it('strict: the first bad line is an error naming its line number', () => {
    expect(() => parseHistory(text)).toThrow(HistoryLineError);
    expect(() => parseHistory(text)).toThrow(/^history line 2 is not JSON: not json$/);
    expect(() => parseHistory([line(0), '', '[1,2]', line(1)].join('\n'))).toThrow(/line 3 is not an op/);
    expect(() => parseHistory([line(0), '{"index":3}'].join('\n'))).toThrow(/line 2 is not an op \(no numeric time\)/);
  });

  it('tolerant: keeps the good lines and lists each bad one with its number and reason', () => {
    const parsed = parseHistoryTolerant(text);
    expect(parsed.ops.map((o) => o.index)).toEqual([0, 4]);
    expect(parsed.truncatedTail).toBe(true);
    expect(parsed.badLines).toEqual([
      { line: 2, reason: 'is not JSON', text: 'not json' },
      { line: 4, reason: 'is not an op (a JSON object)', text: '[1,2]' },
      { line: 5, reason: 'is not an op (no numeric time)', text: '{"index":3}' },
    ]);
    expect(describeBadLines('history.jsonl', parsed.badLines)).toBe(
      'history.jsonl: 3 malformed line(s) skipped (lines 2, 4, 5)',
    );
  });

  it('both drop a cut-off last line (trailing blank lines included) and say so, and only that line', () => {
    for (const parse of [parseHistory, parseHistoryTolerant]) {
      const r = parse(`${line(0)}\n${line(1)}\n{"index":2,"ti\n\n`);
      expect(r.ops.map((o) => o.index)).toEqual([0, 1]);
      expect(r.truncatedTail).toBe(true);
      expect(parse(`${line(0)}\n`).truncatedTail).toBe(false);
    }
    // A last line that is valid JSON but not an op was not cut short: it is a bad line.
    expect(() => parseHistory(`${line(0)}\n[1]\n`)).toThrow(/line 2 is not an op/);
    expect(parseHistoryTolerant(`${line(0)}\n[1]\n`)).toMatchObject({ truncatedTail: false, badLines: [{ line: 2 }] });
  });
});
