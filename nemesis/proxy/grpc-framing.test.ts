import { describe, expect, it } from 'vitest';
import { frameEveryWay } from '../../test/support/byte-splits.ts';
import {
  PREFACE,
  acquireTxn,
  data,
  h2Frame,
  keepAlive,
  keepAliveResponse,
  releaseTxn,
  request,
  responseHeaders,
  settings,
  trailers,
  txnResponse,
} from '../../test/support/grpc-bytes.ts';
import { FramingError } from './framing.ts';
import { grpcFraming } from './grpc-framing.ts';

const TXN = '/etcdserverpb.KV/Txn';
const KEEP_ALIVE = '/etcdserverpb.Lease/LeaseKeepAlive';
const LEASE = 7_587_874_573_874_573_874n; // beyond a double's 53 bits, as etcd's lease ids are
const KEY = 'fencepost/lock/account-0';

describe('grpcFraming: requests', () => {
  it("names each call by its stream's :path and its message, however TCP cut the bytes", () => {
    const bytes = Buffer.concat([
      PREFACE, // 0–24
      settings(), // 24–33
      request(1, KEEP_ALIVE), // 33–…
      data(1, keepAlive(LEASE)),
      request(3, TXN),
      data(3, acquireTxn(KEY, 'owner-1', LEASE), 0x1),
      data(1, keepAlive(LEASE)),
    ]);
    for (const [cut, frames] of frameEveryWay(() => grpcFraming.open().requests, bytes))
      expect(
        frames.map((f) => [f.call, f.detail, f.key, f.value, f.lease]),
        cut,
      ).toEqual([
        ['1/0', `${KEEP_ALIVE} ${LEASE}`, undefined, undefined, String(LEASE)],
        ['3/0', `${TXN} put ${KEY}`, KEY, 'owner-1', String(LEASE)],
        ['1/1', `${KEEP_ALIVE} ${LEASE}`, undefined, undefined, String(LEASE)],
      ]);
  });

  it('a first request spans its HEADERS and the DATA that completed it; a message cut across DATA frames is one', () => {
    const message = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), releaseTxn(KEY, 42n)]);
    message.writeUInt32BE(message.length - 5, 1);
    const head = Buffer.concat([PREFACE, settings(), request(5, TXN)]);
    const bytes = Buffer.concat([
      head,
      h2Frame(0, 0, 5, message.subarray(0, 7)),
      h2Frame(0, 1, 5, message.subarray(7)),
    ]);
    const [frame, ...rest] = grpcFraming.open().requests.feed(bytes);
    expect(rest).toEqual([]);
    expect(frame).toEqual({
      start: 33,
      end: bytes.length,
      name: TXN,
      call: '5/0',
      detail: `${TXN} delete ${KEY}`,
      key: KEY,
      revision: '42',
    });
  });

  it("reads paths a real HTTP/2 client wrote: Huffman-coded, and the third from the connection's dynamic table", () => {
    // Node's http2 client (nghttp2) opening three streams: KV/Txn, Lease/LeaseKeepAlive, KV/Txn again.
    const bytes = Buffer.from(
      '505249202a20485454502f322e300d0a0d0a534d0d0a0d0a000000040000000000000037010400000001' +
        '83048f60a924882d9dcb6571af9b8b1bfcd5418a089d5c0b8170dc132ebf865f8b1d75d0620d263d4c4d656440027465864d833505b1' +
        '1f00001f01040000000383049860a924882d9dcb6571af9ca34158ce51a0b98a5ae1a0ddcbc086bfbe0000160104000000058304' +
        '8f60a924882d9dcb6571af9b8b1bfcd5c086bfbe',
      'hex',
    );
    const requests = grpcFraming.open().requests;
    expect(requests.feed(bytes)).toEqual([]); // no messages yet: nothing to name
    const txn = acquireTxn(KEY, 'o', 1n);
    expect(
      requests.feed(Buffer.concat([data(5, txn), data(3, keepAlive(1n)), data(1, txn)])).map((f) => f.name),
    ).toEqual([TXN, KEEP_ALIVE, TXN]);
  });

  it('refuses bytes that are not cleartext HTTP/2: no preface, or a server that does not open with SETTINGS', () => {
    expect(() => grpcFraming.open().requests.feed(Buffer.from('\x16\x03\x01\x02\x00'))).toThrow(FramingError);
    expect(() => grpcFraming.open().replies.feed(responseHeaders(1))).toThrow(FramingError);
  });
});

describe('grpcFraming: replies', () => {
  it("says which call each server frame answers, and what a Txn's or a keep-alive's answer said", () => {
    const pair = grpcFraming.open();
    pair.requests.feed(Buffer.concat([PREFACE, settings(), request(1, KEEP_ALIVE), request(3, TXN)]));
    const replies = Buffer.concat([
      settings(),
      responseHeaders(3),
      data(1, keepAliveResponse(LEASE, 2n)),
      data(3, txnResponse(true)),
      trailers(3),
      data(1, keepAliveResponse(LEASE, 0n)),
    ]);
    // The keep-alive stream's answers come without headers of their own here: a server may send them either way.
    const frames = pair.replies.feed(replies);
    expect(frames.map((f) => [f.call, f.answer, f.detail])).toEqual([
      [undefined, undefined, undefined],
      ['3/0', 'part', undefined],
      ['1/0', 'whole', 'alive TTL 2'],
      ['3/0', 'whole', 'succeeded at revision 7'],
      ['3/1', 'none', undefined],
      ['1/1', 'whole', 'expired'],
    ]);
    expect(frames.at(-1)!.end).toBe(replies.length);
  });

  it('a Txn that found the key held answers failed; an error status with no message ends the call unanswered', () => {
    const pair = grpcFraming.open();
    pair.requests.feed(Buffer.concat([PREFACE, settings(), request(1, TXN), request(3, TXN)]));
    const frames = pair.replies.feed(
      Buffer.concat([settings(), responseHeaders(1), data(1, txnResponse(false)), trailers(3)]),
    );
    expect(frames.slice(2).map((f) => [f.call, f.answer, f.detail])).toEqual([
      ['1/0', 'whole', 'failed at revision 7'],
      ['3/0', 'none', undefined],
    ]);
  });
});
