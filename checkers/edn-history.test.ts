import { describe, expect, it } from 'vitest';
import { parseEdnHistory } from './edn-history.ts';

describe('EDN histories (Jepsen/Knossos format)', () => {
  it('reads a vector of op maps: keywords to strings, nil to null, position as index', () => {
    const ops = parseEdnHistory(`[{:process 0, :type :invoke, :f :cas, :value [1 2]}
 ; a comment, as Knossos's data files have
 {:process 0, :type :ok, :f :cas, :value [1 2], :time 1234}]`);
    expect(ops).toEqual([
      { index: 0, time: 0, process: 0, type: 'invoke', f: 'cas', value: [1, 2] },
      { index: 1, time: 1234, process: 0, type: 'ok', f: 'cas', value: [1, 2] },
    ]);
  });

  it('reads a list, and one map per line', () => {
    const list = parseEdnHistory(
      '({:process 1, :type :invoke, :f :read, :value nil} {:process 1, :type :ok, :f :read, :value 3})',
    );
    const lines = parseEdnHistory(
      '{:process 1, :type :invoke, :f :read, :value nil}\n{:process 1, :type :ok, :f :read, :value 3}\n',
    );
    expect(lines).toEqual(list);
    expect(list[1]).toMatchObject({ process: 1, type: 'ok', f: 'read', value: 3 });
  });

  it('reads the old [process type f value] tuple format', () => {
    expect(parseEdnHistory('[0 :invoke :write 3]\n[0 :ok :write 3]')).toMatchObject([
      { process: 0, type: 'invoke', f: 'write', value: 3 },
      { process: 0, type: 'ok', f: 'write', value: 3 },
    ]);
  });

  it('makes :nemesis (and any non-integer process) a non-client, and keeps errors as strings', () => {
    const [nemesis, failed] = parseEdnHistory(
      '[{:process :nemesis, :type :info, :f :start, :value nil} {:process 3, :type :fail, :f :write, :value 1, :error [:timeout nil]}]',
    );
    expect(nemesis.process).toBe('nemesis');
    expect(failed.error).toBe('["timeout",null]');
  });

  it('a missing :value is null; big integers stay exact', () => {
    const [a, b] = parseEdnHistory(
      '[{:process 0 :type :invoke :f :acquire} {:process 0 :type :ok :f :acquire :value 123456789012345678901N}]',
    );
    expect(a.value).toBeNull();
    expect(b.value).toBe('123456789012345678901');
  });

  it.each([
    ['an unknown :type', '[{:process 0 :type :done :f :read}]', /:type must be/],
    ['a missing :f', '[{:process 0 :type :invoke}]', /:f must be a keyword/],
    ['a truncated file', '[{:process 0 :type :invoke :f :read}', /truncated or empty/],
    ['an empty file', '', /empty/],
  ])('rejects %s with a message', (_name, text, message) => {
    expect(() => parseEdnHistory(text)).toThrow(message);
  });
});
