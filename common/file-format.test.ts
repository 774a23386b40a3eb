import { describe, expect, it } from 'vitest';
import { defineFormat, fieldTableMarkdown, versionOf } from './file-format.ts';
import { HarnessError } from './errors.ts';

interface Pair {
  v: number;
  a: string;
  b?: number;
}

const PAIR = defineFormat<Pair>({
  file: 'pair.json',
  what: 'two values.',
  versionField: 'v',
  current: 2,
  versions: [
    { version: 1, what: 'no `b`' },
    { version: 2, what: '`b` added, 0 when absent' },
  ],
  fields: { v: 'the version', a: 'a | name', b: 'a count' },
  decode: (raw, file) => {
    const v = versionOf(PAIR, raw, file);
    const r = raw as Partial<Pair>;
    return { v, a: String(r.a), b: r.b ?? 0 };
  },
});

describe('a file format declared once', () => {
  it('reads an older version in today’s shape and one without a number as version 0', () => {
    expect(PAIR.decode({ v: 1, a: 'x' }, 'p.json')).toEqual({ v: 1, a: 'x', b: 0 });
    expect(PAIR.decode({ a: 'y', b: 3 }, 'p.json')).toEqual({ v: 0, a: 'y', b: 3 });
  });

  it('refuses a newer version, and a version that is not a number, as a bad argument', () => {
    expect(() => PAIR.decode({ v: 3, a: 'x' }, 'p.json')).toThrow(HarnessError);
    expect(() => PAIR.decode({ v: 3, a: 'x' }, 'p.json')).toThrow(
      'p.json has v 3, newer than this fencepost reads (up to 2): it was written by a newer fencepost.',
    );
    expect(() => PAIR.decode({ v: 'two' }, 'p.json')).toThrow('p.json has v "two", which is not a v number.');
  });

  it('writes the docs’ table from the declaration, its version rule first', () => {
    expect(fieldTableMarkdown(PAIR)).toBe(
      [
        '`pair.json`: two values. Its `v` is 2. Versions: 1 — no `b`; 2 — `b` added, 0 when absent.',
        '',
        '| field | what it is |',
        '|---|---|',
        '| `v` | the version |',
        '| `a` | a \\| name |',
        '| `b` | a count |',
      ].join('\n'),
    );
  });

  it('adds the required and without-it columns when a field says them; a plain row is optional with nothing', () => {
    const withRows = defineFormat<{ cmd: string; name?: string }, null>({
      file: '<x>.json',
      what: 'a manifest.',
      versionField: null,
      current: 0,
      versions: [{ version: 0, what: 'the only one' }],
      fields: { cmd: { what: 'the program', required: true, without: '—' }, name: 'how it is named' },
      decode: () => null,
    });
    expect(fieldTableMarkdown(withRows).split('\n')).toEqual([
      '`<x>.json`: a manifest. It carries no version number. Versions: 0 — the only one.',
      '',
      '| field | required | what it says | without it |',
      '|---|---|---|---|',
      '| `cmd` | yes | the program | — |',
      '| `name` | no | how it is named | — |',
    ]);
  });

  it('refuses a declaration whose current version is not its last listed one', () => {
    expect(() => defineFormat<Pair>({ ...PAIR, current: 3 })).toThrow(
      'pair.json: current is 3 but its last listed version is 2',
    );
  });
});
