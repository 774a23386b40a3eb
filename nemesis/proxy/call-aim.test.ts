import { describe, expect, it } from 'vitest';
import {
  PREFACE,
  acquireTxn,
  data,
  keepAlive,
  keepAliveResponse,
  request,
  responseHeaders,
  settings,
  trailers,
  txnResponse,
} from '../../test/support/grpc-bytes.ts';
import { CallAim } from './call-aim.ts';
import { grpcFraming } from './grpc-framing.ts';
import type { Piece } from './reply-aim.ts';

const TXN = '/etcdserverpb.KV/Txn';
const KEEP_ALIVE = '/etcdserverpb.Lease/LeaseKeepAlive';
const KEY = 'fencepost/lock/account-0';

/** Each piece as what became of it and how many bytes: literal frames are easier to count than to print. */
const sizes = (pieces: Piece[]) => pieces.map((p) => `${p.drop ? 'drop' : 'keep'} ${p.bytes.length}`);

/** A connection with a keep-alive stream (1) and an acquire's Txn (3) open, the Txn aimed at. */
function aimedAtTxn() {
  const aim = new CallAim(grpcFraming.open());
  const opened = aim.requestBytes(
    Buffer.concat([PREFACE, settings(), request(1, KEEP_ALIVE), data(1, keepAlive(5n)), request(3, TXN)]),
  );
  expect(opened.map((r) => r.frame.call)).toEqual(['1/0']);
  const [txn] = aim.requestBytes(data(3, acquireTxn(KEY, 'owner-1', 5n), 0x1));
  aim.aim(txn.index, txn.frame);
  aim.replyBytes(settings());
  return aim;
}

describe('CallAim: replies paired by stream, not by order', () => {
  it("delivers other streams' frames while the aimed call waits, then drops from its first reply frame on", () => {
    const aim = aimedAtTxn();
    expect(aim.waiting).toBe(true);
    const keepAliveAnswer = data(1, keepAliveResponse(5n, 2n));
    // A keep-alive's answer that came first goes to the client: it is not the Txn's, whatever its order.
    expect(sizes(aim.replyBytes(keepAliveAnswer, 'succeeded'))).toEqual([`keep ${keepAliveAnswer.length}`]);
    // The Txn's response headers: held — the answer says whether it is to be dropped — and so is what follows.
    expect(sizes(aim.replyBytes(Buffer.concat([responseHeaders(3), keepAliveAnswer]), 'succeeded'))).toEqual([]);
    const answer = data(3, txnResponse(true));
    const dropped = responseHeaders(3).length + keepAliveAnswer.length + answer.length + trailers(3).length;
    expect(sizes(aim.replyBytes(Buffer.concat([answer, trailers(3)]), 'succeeded'))).toEqual([`drop ${dropped}`]);
    expect(aim.dropped?.request).toMatchObject({ call: '3/0', key: KEY, value: 'owner-1', lease: '5' });
    expect(aim.dropped?.reply).toMatchObject({ call: '3/0', answer: 'whole', detail: 'succeeded at revision 7' });
    // Everything after on this connection is gone too (the link then resets it).
    expect(sizes(aim.replyBytes(keepAliveAnswer))).toEqual([`drop ${keepAliveAnswer.length}`]);
  });

  it('with replyIs, delivers an answer that does not begin with it, gives the aim up and says the shot passed', () => {
    const aim = aimedAtTxn();
    let passed = 0;
    const bytes = Buffer.concat([responseHeaders(3), data(3, txnResponse(false)), trailers(3)]);
    expect(sizes(aim.replyBytes(bytes, 'succeeded', () => passed++))).toEqual([`keep ${bytes.length}`]);
    expect([passed, aim.waiting, aim.dropped]).toEqual([1, false, undefined]);
  });

  it('an aimed call ended with an error status and no answer is delivered, and the shot passes', () => {
    const aim = aimedAtTxn();
    let passed = 0;
    expect(sizes(aim.replyBytes(trailers(3), 'succeeded', () => passed++))).toEqual([`keep ${trailers(3).length}`]);
    expect(passed).toBe(1);
  });

  it("aims at one message of a bidirectional stream: the keep-alive stream's second answer, not its first", () => {
    const aim = new CallAim(grpcFraming.open());
    aim.requestBytes(Buffer.concat([PREFACE, settings(), request(1, KEEP_ALIVE), data(1, keepAlive(5n))]));
    aim.replyBytes(Buffer.concat([settings(), responseHeaders(1)]));
    const [second] = aim.requestBytes(data(1, keepAlive(5n)));
    expect(second.frame.call).toBe('1/1');
    aim.aim(second.index, second.frame);
    const first = data(1, keepAliveResponse(5n, 2n));
    expect(sizes(aim.replyBytes(first, 'alive'))).toEqual([`keep ${first.length}`]);
    expect(sizes(aim.replyBytes(first, 'alive'))).toEqual([`drop ${first.length}`]);
    expect(aim.dropped?.reply.detail).toBe('alive TTL 2');
  });

  it('without replyIs, drops from the first reply frame of the aimed call: its response headers', () => {
    const aim = aimedAtTxn();
    expect(sizes(aim.replyBytes(responseHeaders(3)))).toEqual([`drop ${responseHeaders(3).length}`]);
    expect(aim.dropped?.reply).toMatchObject({ call: '3/0', answer: 'part' });
  });

  it('a heal before the answer gives the aim up and releases what was held', () => {
    const aim = aimedAtTxn();
    aim.replyBytes(responseHeaders(3), 'succeeded');
    expect(sizes(aim.cancel())).toEqual([`keep ${responseHeaders(3).length}`]);
    expect(aim.waiting).toBe(false);
  });
});
