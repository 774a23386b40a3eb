import { describe, expect, it } from 'vitest';
import { decodeReply, encodeRequest, ProtocolViolation } from './protocol.ts';

describe('encodeRequest', () => {
  it('writes one JSON object a line, the id first', () => {
    expect(encodeRequest(7, { op: 'acquire', key: 'account-0' })).toBe('{"id":7,"op":"acquire","key":"account-0"}\n');
    expect(encodeRequest(8, { op: 'close' })).toBe('{"id":8,"op":"close"}\n');
  });
});

describe('decodeReply', () => {
  it.each([
    ['{"id":1,"ok":true}', 'connect', { kind: 'connected' }],
    ['{"id":1,"error":"ECONNREFUSED"}', 'connect', { kind: 'error', error: 'ECONNREFUSED' }],
    ['{"id":1,"result":"held"}', 'acquire', { kind: 'held' }],
    [
      '{"id":1,"result":"held","token":"123","validityMs":1900,"attempts":3}',
      'acquire',
      { kind: 'held', token: '123', validityMs: 1900, attempts: 3 },
    ],
    ['{"id":1,"result":"held","token":42}', 'acquire', { kind: 'held', token: '42' }],
    ['{"id":1,"result":"not-acquired","reason":"busy"}', 'acquire', { kind: 'not-acquired', reason: 'busy' }],
    ['{"id":1,"result":"not-acquired"}', 'acquire', { kind: 'not-acquired', reason: 'not acquired' }],
    ['{"id":1,"result":"error","error":"timeout"}', 'acquire', { kind: 'error', error: 'timeout' }],
    ['{"id":1,"result":"error"}', 'acquire', { kind: 'error', error: 'error (no message)' }],
    ['{"id":1,"result":"held","validityMs":500}', 'renew', { kind: 'held', validityMs: 500 }],
    ['{"id":1,"result":"lost"}', 'renew', { kind: 'lost' }],
    ['{"id":1,"result":"released"}', 'release', { kind: 'released', held: true }],
    ['{"id":1,"result":"released","held":false}', 'release', { kind: 'released', held: false }],
    ['{"id":1,"result":"closed"}', 'close', { kind: 'closed' }],
  ] as const)('%s to %s', (line, op, want) => {
    expect(decodeReply(line, 1, op, false)).toEqual(want);
  });

  it.each([
    ['hello', 'acquire', 'not JSON, in reply to acquire #1'],
    ['[1]', 'acquire', 'a reply must be a JSON object'],
    ['{"id":2,"result":"held"}', 'acquire', 'expected the reply to acquire #1, got id 2'],
    ['{"result":"held"}', 'acquire', 'got id undefined'],
    ['{"id":1,"result":"lost"}', 'acquire', 'acquire answers result "held", "not-acquired" or "error"'],
    ['{"id":1,"result":"held"}', 'release', 'release answers result "released" or "error"'],
    ['{"id":1,"ok":false}', 'connect', 'connect answers'],
    ['{"id":1,"result":"held","token":"12a"}', 'acquire', '"token" must be a decimal string of at most 20 digits'],
    ['{"id":1,"result":"held","token":"123456789012345678901"}', 'acquire', 'at most 20 digits'],
    ['{"id":1,"result":"held","token":1e300}', 'acquire', '"token" must be a decimal string'],
    ['{"id":1,"result":"held","validityMs":-1}', 'acquire', '"validityMs" must be a number of ms ≥ 0'],
    ['{"id":1,"result":"held","attempts":0}', 'acquire', '"attempts" must be a whole number ≥ 1'],
    ['{"id":1,"result":"released","held":"yes"}', 'release', '"held" must be true or false'],
  ] as const)('refuses %s to %s, naming the line', (line, op, why) => {
    let err: unknown;
    try {
      decodeReply(line, 1, op, false);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProtocolViolation);
    expect((err as Error).message).toContain(why);
    expect((err as Error).message).toContain(JSON.stringify(line));
  });

  it('holds a lock that declares token "monotonic" to a token on every held', () => {
    expect(() => decodeReply('{"id":3,"result":"held"}', 3, 'acquire', true)).toThrow(
      /"held" without a "token", but the manifest declares token "monotonic"/,
    );
    expect(decodeReply('{"id":3,"result":"held","token":"9"}', 3, 'acquire', true)).toEqual({
      kind: 'held',
      token: '9',
    });
  });

  it('shortens a long offending line in the message', () => {
    const line = 'x'.repeat(5000);
    expect(() => decodeReply(line, 1, 'acquire', false)).toThrow(/x{200}…"$/);
  });
});
