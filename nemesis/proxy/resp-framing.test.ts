import { describe, expect, it } from 'vitest';
import { frameEveryWay } from '../../test/support/byte-splits.ts';
import { FramingError } from './framing.ts';
import { respFraming } from './resp-framing.ts';

const requests = () => respFraming.open().requests;
const replies = () => respFraming.open().replies;

describe('RESP framing', () => {
  it('frames requests — arrays of bulk strings and inline commands — however TCP cuts them', () => {
    const bytes = Buffer.from(
      '*3\r\n$3\r\nset\r\n$4\r\nlock\r\n$2\r\nme\r\nPING\r\n\r\n*2\r\n$3\r\nGET\r\n$4\r\nlock\r\n',
    );
    const expected = [
      { start: 0, end: 31, name: 'SET', detail: 'lock', value: 'me' },
      { start: 31, end: 37, name: 'PING' },
      // The empty inline line (37–39) is no request: Redis answers nothing to it.
      { start: 39, end: 62, name: 'GET', detail: 'lock' },
    ];
    for (const [cut, frames] of frameEveryWay(requests, bytes)) expect(frames, cut).toEqual(expected);
  });

  it("gives an EVAL its script as detail: a release script (it deletes) told from a renewal's (it extends)", () => {
    const release = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
    const bytes = Buffer.from(
      `*5\r\n$4\r\neval\r\n$${release.length}\r\n${release}\r\n$1\r\n1\r\n$4\r\nlock\r\n$2\r\nme\r\n`,
    );
    const [frame] = requests().feed(bytes);
    expect(frame).toEqual({
      start: 0,
      end: bytes.length,
      name: 'EVAL',
      detail: release,
      keys: ['lock'],
      args: ['me'],
    });
  });

  it("gives an EVAL its keys and arguments, however TCP cuts it: what a plugin's acquire script wrote", () => {
    const script = "redis.call('hincrby', KEYS[1], ARGV[2], 1)";
    const bytes = Buffer.from(
      `*6\r\n$4\r\nEVAL\r\n$${script.length}\r\n${script}\r\n$1\r\n1\r\n$9\r\nbroken:a0\r\n$4\r\n2000\r\n$4\r\nc1:7\r\n`,
    );
    for (const [cut, frames] of frameEveryWay(requests, bytes))
      expect(frames, cut).toEqual([
        { start: 0, end: bytes.length, name: 'EVAL', detail: script, keys: ['broken:a0'], args: ['2000', 'c1:7'] },
      ]);
    const bad = Buffer.from(`*3\r\n$4\r\nEVAL\r\n$1\r\ns\r\n$1\r\nx\r\n`);
    expect(requests().feed(bad)).toEqual([
      { start: 0, end: bad.length, name: 'EVAL', detail: 's', keys: [], args: [] },
    ]);
  });

  it('frames every RESP2 and RESP3 reply type, an attribute with its reply, and marks a push unsolicited', () => {
    const parts = [
      '+OK\r\n',
      '$-1\r\n',
      '-ERR wrong\r\n',
      ':1\r\n',
      '$5\r\nhe\r\nl\r\n', // a bulk string holding CRLF: framed by its length
      '*2\r\n$1\r\na\r\n*-1\r\n',
      '%1\r\n+k\r\n:2\r\n',
      '>2\r\n+message\r\n+x\r\n',
      '|1\r\n+ttl\r\n:3\r\n+OK\r\n',
      '_\r\n',
      ',1.5\r\n',
      '#t\r\n',
      '=7\r\ntxt:abc\r\n',
    ];
    const bytes = Buffer.from(parts.join(''));
    let start = 0;
    const expected = parts.map((p) => {
      const frame = { start, end: start + p.length, ...(p.startsWith('>') && { unsolicited: true }) };
      start += p.length;
      return frame;
    });
    for (const [cut, frames] of frameEveryWay(replies, bytes)) expect(frames, cut).toEqual(expected);
  });

  it('refuses bytes that are not RESP, naming the offset', () => {
    const framer = replies();
    expect(framer.feed(Buffer.from('+OK\r\n'))).toHaveLength(1);
    expect(() => framer.feed(Buffer.from('?huh\r\n'))).toThrow(FramingError);
    expect(() => replies().feed(Buffer.from('$x\r\n'))).toThrow(/RESP framing lost at byte 0: bad length "x"/);
  });
});
