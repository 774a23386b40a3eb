import { describe, expect, it } from 'vitest';
import { benchArgs, commaList, namesOf, wholeNumbers } from './bench-args.ts';
import type { OptionSpec } from '../harness/option-table.ts';

const TABLE = [
  { name: 'quick', kind: 'bool', default: false, help: 'small' },
  { name: 'rounds', kind: 'int', min: 1, default: 3, help: 'rounds' },
  { name: 'sizes', kind: 'string', help: 'sizes', parse: wholeNumbers('sizes', 1, 100) },
  { name: 'locks', kind: 'string', default: 'a,b', help: 'locks', parse: namesOf('locks', ['a', 'b', 'c']) },
  { name: 'from', kind: 'string', help: 'from', parse: commaList('from') },
] as const satisfies readonly OptionSpec[];

describe("a benchmark's arguments, read by the CLI's walker against its table", () => {
  it('gives typed values, the defaults parsed as the given ones are', () => {
    expect(benchArgs('b', ['--quick', '--rounds', '5', '--sizes=1,20', '--from=x,y'], TABLE)).toEqual({
      quick: true,
      rounds: 5,
      sizes: [1, 20],
      locks: ['a', 'b'],
      from: ['x', 'y'],
    });
    expect(benchArgs('b', [], TABLE)).toEqual({ quick: false, rounds: 3, locks: ['a', 'b'] });
  });

  it('the list readers refuse what is out of range, unknown or empty, naming the option', () => {
    expect(() => wholeNumbers('sizes', 1, 100)('1,0')).toThrow(
      '--sizes=1,0: each must be a whole number from 1 to 100.',
    );
    expect(() => wholeNumbers('sizes', 1, 100)('1,x')).toThrow('--sizes=1,x');
    expect(() => namesOf('locks', ['a', 'b'])('a,z')).toThrow('--locks: "z" is not one of a,b.');
    expect(() => commaList('from')(',')).toThrow('--from needs at least one value.');
  });
});
