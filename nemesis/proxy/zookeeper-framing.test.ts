import { describe, expect, it } from 'vitest';
import { frameEveryWay } from '../../test/support/byte-splits.ts';
import { FramingError } from './framing.ts';
import { zookeeperFraming } from './zookeeper-framing.ts';

/** A length-prefixed packet of int32s. */
function packet(...ints: number[]): Buffer {
  const b = Buffer.alloc(4 + 4 * ints.length);
  b.writeInt32BE(4 * ints.length, 0);
  ints.forEach((n, i) => b.writeInt32BE(n, 4 + 4 * i));
  return b;
}

/** A request packet: xid, op, a path (jute ustring), then int32s. */
function request(xid: number, op: number, path: string, rest: number[]): Buffer {
  const p = Buffer.from(path, 'utf8');
  const body = Buffer.alloc(12 + p.length + 4 * rest.length);
  body.writeInt32BE(xid, 0);
  body.writeInt32BE(op, 4);
  body.writeInt32BE(p.length, 8);
  p.copy(body, 12);
  rest.forEach((n, i) => body.writeInt32BE(n, 12 + p.length + 4 * i));
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length, 0);
  return Buffer.concat([len, body]);
}

describe('ZooKeeper framing', () => {
  it('frames requests by length, naming each op; the first is the ConnectRequest', () => {
    const bytes = Buffer.concat([
      packet(0, 0, 0, 30_000, 0), // 0–24: ConnectRequest (protocol version, zxid, timeout, session …)
      packet(1, 1, 0, 0), // 24–44: xid 1, create
      packet(-2, 11), // 44–56: ping
      packet(2, 2, 0), // 56–72: xid 2, delete
    ]);
    const expected = [
      { start: 0, end: 24, name: 'connect' },
      { start: 24, end: 44, name: 'create' },
      { start: 44, end: 56, name: 'ping' },
      { start: 56, end: 72, name: 'delete' },
    ];
    for (const [cut, frames] of frameEveryWay(() => zookeeperFraming.open().requests, bytes))
      expect(frames, cut).toEqual(expected);
  });

  it("gives a request's path as its detail: the node a create asked for, the node a delete names", () => {
    const create = request(7, 1, '/fencepost/locks/account-0/c1-0a1b2c-lock-', [0, 0, 0, 3]); // data, acl, flags
    const bytes = Buffer.concat([
      packet(0, 0, 0, 30_000, 0), // ConnectRequest
      create,
      request(8, 2, '/fencepost/locks/account-0/c1-0a1b2c-lock-0000000004', [-1]), // delete, version -1
      packet(-2, 11), // ping: no path
    ]);
    const frames = [...frameEveryWay(() => zookeeperFraming.open().requests, bytes).values()];
    for (const f of frames)
      expect(f.map((x) => [x.name, x.detail])).toEqual([
        ['connect', undefined],
        ['create', '/fencepost/locks/account-0/c1-0a1b2c-lock-'],
        ['delete', '/fencepost/locks/account-0/c1-0a1b2c-lock-0000000004'],
        ['ping', undefined],
      ]);
  });

  it('gives no path when the length it states runs past the packet', () => {
    const cut = request(7, 1, '/a', []);
    cut.writeInt32BE(40, 12); // the path says 40 bytes; the packet has 2
    expect(zookeeperFraming.open().requests.feed(Buffer.concat([packet(0), cut]))[1]).toEqual({
      start: 8,
      end: 8 + cut.length,
      name: 'create',
    });
  });

  it('frames replies and marks a watch event (xid -1) unsolicited', () => {
    const bytes = Buffer.concat([
      packet(0, 30_000, 0, 1), // 0–20: ConnectResponse
      packet(1, 0, 5, 0), // 20–40: xid 1, zxid 5, err 0
      packet(-1, 0, -1, 0, 2), // 40–64: watch event
      packet(-2, 0, 5, 0), // 64–84: ping reply
    ]);
    const expected = [
      { start: 0, end: 20, name: 'connected' },
      { start: 20, end: 40 },
      { start: 40, end: 64, name: 'watchEvent', unsolicited: true },
      { start: 64, end: 84 },
    ];
    for (const [cut, frames] of frameEveryWay(() => zookeeperFraming.open().replies, bytes))
      expect(frames, cut).toEqual(expected);
  });

  it('refuses a length no ZooKeeper packet has', () => {
    expect(() => zookeeperFraming.open().requests.feed(Buffer.from('GET / HTTP/1.1\r\n'))).toThrow(FramingError);
  });
});
