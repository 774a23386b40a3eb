import { describe, expect, it } from 'vitest';
import { frameEveryWay } from '../../test/support/byte-splits.ts';
import { postgresFraming } from './postgres-framing.ts';

/** A typed message: type byte, int32 length (counting itself), body. */
function msg(type: string, body: string | Buffer = ''): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(4 + b.length, 1);
  return Buffer.concat([header, b]);
}

/** An untyped startup-phase packet: int32 length, int32 code, body. */
function packet(code: number, body = ''): Buffer {
  const header = Buffer.alloc(8);
  header.writeInt32BE(8 + Buffer.byteLength(body), 0);
  header.writeInt32BE(code, 4);
  return Buffer.concat([header, Buffer.from(body)]);
}

const SSL_REQUEST = packet(80877103); // 8 bytes
const STARTUP = packet(196608, 'user\0me\0\0'); // 8 + 9 = 17 bytes
const int32 = (n: number) => Buffer.from([0, 0, 0, n]);

describe('Postgres framing', () => {
  it('frames requests: SSLRequest, StartupMessage with its password, a Query, an extended-protocol run to Sync', () => {
    const bytes = Buffer.concat([
      SSL_REQUEST, // 0–8
      STARTUP, // 8–25
      msg('p', 'secret\0'), // 25–37: joins the next request, whose 'Z' it shares
      msg('Q', 'SELECT pg_try_advisory_lock(7)\0'), // 37–73
      msg('P', '\0SELECT 1\0\0\0'), // 73–90
      msg('B', '\0\0\0\0\0\0\0\0'), // 90–103
      msg('E', '\0\0\0\0\0'), // 103–113
      msg('S'), // 113–118
    ]);
    const expected = [
      { start: 0, end: 8, name: 'SSLRequest' },
      { start: 8, end: 25, name: 'StartupMessage' },
      { start: 25, end: 73, name: 'p/Query', detail: 'SELECT pg_try_advisory_lock(7)' },
      { start: 73, end: 118, name: 'Parse/Bind/Execute/Sync', detail: 'SELECT 1' },
    ];
    for (const [cut, frames] of frameEveryWay(() => postgresFraming.open().requests, bytes))
      expect(frames, cut).toEqual(expected);
  });

  it('frames replies up to each ReadyForQuery, the refused-SSL byte first', () => {
    const bytes = Buffer.concat([
      Buffer.from('N'), // 0–1: SSL refused
      msg('R', int32(0)), // 1–10: AuthenticationOk
      msg('S', 'server_version\u000017\0'), // 10–33
      msg('Z', 'I'), // 33–39
      msg('C', 'SELECT 1\0'), // 39–53
      msg('Z', 'I'), // 53–59
      msg('A', Buffer.concat([int32(9), Buffer.from('ch\0x\0')])), // 59–73: a notification, part of the next reply
      msg('1'), // 73–78
      msg('2'), // 78–83
      msg('Z', 'T'), // 83–89
    ]);
    const expected = [
      { start: 0, end: 1, name: 'EncryptionRefused' },
      { start: 1, end: 39, name: 'ReadyForQuery' },
      { start: 39, end: 59, name: 'ReadyForQuery' },
      { start: 59, end: 89, name: 'ReadyForQuery' },
    ];
    const open = () => {
      const pair = postgresFraming.open();
      pair.requests.feed(SSL_REQUEST); // the reply framer reads 'N' as an answer only once the request was sent
      return pair.replies;
    };
    for (const [cut, frames] of frameEveryWay(open, bytes)) expect(frames, cut).toEqual(expected);
  });

  it('stops at TLS: after the server accepts encryption the bytes are ciphertext', () => {
    const pair = postgresFraming.open();
    pair.requests.feed(SSL_REQUEST);
    expect(() => pair.replies.feed(Buffer.from('S'))).toThrow(/Postgres framing lost at byte 0: .*ciphertext/);
  });
});
