import { describe, expect, it } from 'vitest';
import { ReplyAim, type Piece } from './reply-aim.ts';
import { respFraming } from './resp-framing.ts';

const PING = '*1\r\n$4\r\nPING\r\n'; // 14 bytes
const SET = '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n'; // 27 bytes

const text = (pieces: Piece[]) => pieces.map((p) => `${p.drop ? 'drop' : 'keep'} ${p.bytes.toString()}`);

describe('ReplyAim', () => {
  it('passes replies through at once while nothing is aimed at, even a reply cut mid-frame', () => {
    const aim = new ReplyAim(respFraming.open());
    expect(aim.requestBytes(Buffer.from(PING))).toEqual([{ index: 0, frame: { start: 0, end: 14, name: 'PING' } }]);
    expect(text(aim.replyBytes(Buffer.from('+PO')))).toEqual(['keep +PO']);
    expect(text(aim.replyBytes(Buffer.from('NG\r\n')))).toEqual(['keep NG\r\n']);
  });

  it("holds back the aimed reply's first bytes until it is whole, then drops it and all after it", () => {
    const aim = new ReplyAim(respFraming.open());
    const requests = aim.requestBytes(Buffer.from(PING + SET));
    expect(requests.map((r) => [r.index, r.frame.name])).toEqual([
      [0, 'PING'],
      [1, 'SET'],
    ]);
    aim.aim(1, requests[1].frame);
    expect(aim.waiting).toBe(true);
    // The PING's reply is whole and goes; "+O" may be the start of SET's reply, so it waits.
    expect(text(aim.replyBytes(Buffer.from('+PONG\r\n+O')))).toEqual(['keep +PONG\r\n']);
    expect(text(aim.replyBytes(Buffer.from('K\r\n:1\r\n')))).toEqual(['drop +OK\r\n:1\r\n']);
    expect(aim.dropped).toEqual({
      request: { start: 14, end: 41, name: 'SET', detail: 'k', value: 'v' },
      reply: { start: 7, end: 12 },
    });
    expect(text(aim.replyBytes(Buffer.from('+late\r\n')))).toEqual(['drop +late\r\n']);
  });

  it('with replyIs, delivers an aimed reply that does not begin with it and says the shot passed', () => {
    const aim = new ReplyAim(respFraming.open());
    const [first, second] = aim.requestBytes(Buffer.from(SET + SET));
    let passed = 0;
    aim.aim(first.index, first.frame);
    // A SET NX that found the key held: nil, the server did nothing — delivered, the aim given up.
    expect(text(aim.replyBytes(Buffer.from('$-1\r\n'), '+OK', () => passed++))).toEqual(['keep $-1\r\n']);
    expect(passed).toBe(1);
    expect(aim.waiting).toBe(false);
    aim.aim(second.index, second.frame);
    expect(text(aim.replyBytes(Buffer.from('+OK\r\n'), '+OK', () => passed++))).toEqual(['drop +OK\r\n']);
    expect(passed).toBe(1);
    expect(aim.dropped?.request).toEqual({ start: 27, end: 54, name: 'SET', detail: 'k', value: 'v' });
  });

  it('does not count a RESP3 push as a reply when pairing', () => {
    const aim = new ReplyAim(respFraming.open());
    const [first] = aim.requestBytes(Buffer.from(SET));
    aim.aim(first.index, first.frame);
    expect(text(aim.replyBytes(Buffer.from('>2\r\n+message\r\n+x\r\n+OK\r\n')))).toEqual([
      'keep >2\r\n+message\r\n+x\r\n',
      'drop +OK\r\n',
    ]);
  });

  it('releases what it held when the aim is cancelled, and then passes replies again', () => {
    const aim = new ReplyAim(respFraming.open());
    const [first] = aim.requestBytes(Buffer.from(SET));
    aim.aim(first.index, first.frame);
    expect(text(aim.replyBytes(Buffer.from('+O')))).toEqual([]);
    expect(text(aim.cancel())).toEqual(['keep +O']);
    expect(text(aim.replyBytes(Buffer.from('K\r\n')))).toEqual(['keep K\r\n']);
    expect(aim.dropped).toBeUndefined();
  });

  it('stops framing at bytes that are not the protocol, and is never aimed at after', () => {
    const aim = new ReplyAim(respFraming.open());
    const [first] = aim.requestBytes(Buffer.from(SET));
    aim.aim(first.index, first.frame);
    expect(text(aim.replyBytes(Buffer.from('\x16\x03\x01 not RESP')))).toEqual(['keep \x16\x03\x01 not RESP']);
    expect(aim.lost).toMatch(/RESP framing lost at byte 0/);
    expect(aim.waiting).toBe(false);
    expect(aim.requestBytes(Buffer.from(SET))).toEqual([]);
  });
});
