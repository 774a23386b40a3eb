/**
 * ZooKeeper framing: every packet both ways is an int32 length and that many bytes. The first request is the
 * ConnectRequest and the first reply its ConnectResponse (no header). After that a request starts with xid and
 * op code, a reply with xid, zxid and error; the server answers requests in order. A reply with xid -1 is a watch
 * event, sent unasked: it answers no request. Pings (xid -2) are requests with replies like any other, so an aim
 * that names an op (`create`) passes them by. A request whose body begins with a path (a create, a delete, a read)
 * carries it as `detail`: the node a dropped create asked for, to be looked for on the server afterwards.
 */
import { type Frame, type Framer, type Framing, FramingError, Unframed } from './framing.ts';

const PROTOCOL = 'ZooKeeper';
const WATCH_EVENT_XID = -1;
/** Op codes (org.apache.zookeeper.ZooDefs.OpCode) a lock recipe sends. */
const OPS: Record<number, string> = {
  1: 'create',
  2: 'delete',
  3: 'exists',
  4: 'getData',
  5: 'setData',
  8: 'getChildren',
  9: 'sync',
  11: 'ping',
  12: 'getChildren2',
  13: 'check',
  14: 'multi',
  15: 'create2',
  19: 'createContainer',
  21: 'createTTL',
  100: 'auth',
  101: 'setWatches',
  105: 'setWatches2',
  106: 'addWatch',
  [-11]: 'closeSession',
};
/** The ops whose request body begins with the node's path (a jute ustring: int32 length, then UTF-8 bytes). */
const PATH_FIRST = new Set([1, 2, 3, 4, 5, 8, 9, 12, 13, 15, 19, 21, 106]);
/** Packet length, xid and op code: where a request's body, and so its path, begins. */
const BODY_AT = 12;
/** Far beyond ZooKeeper's own jute.maxbuffer (1 MiB by default): a bigger length means we are not reading ZooKeeper. */
const MAX_PACKET_BYTES = 64 << 20;

export const zookeeperFraming: Framing = {
  protocol: PROTOCOL,
  open: () => ({ requests: new ZooKeeperPackets(true), replies: new ZooKeeperPackets(false) }),
};

class ZooKeeperPackets implements Framer {
  private readonly buffer = new Unframed();
  private connected = false;

  constructor(private readonly requests: boolean) {}

  feed(bytes: Buffer): Frame[] {
    this.buffer.append(bytes);
    const frames: Frame[] = [];
    for (;;) {
      const b = this.buffer.bytes;
      if (b.length < 4) return frames;
      const length = b.readInt32BE(0);
      if (length < 0 || length > MAX_PACKET_BYTES)
        throw new FramingError(PROTOCOL, this.buffer.offset, `packet length ${length}`);
      if (b.length < 4 + length) return frames;
      frames.push(this.buffer.consume(4 + length, this.facts(b, length)));
      this.connected = true;
    }
  }

  private facts(b: Buffer, length: number): Omit<Frame, 'start' | 'end'> {
    if (!this.connected) return { name: this.requests ? 'connect' : 'connected' };
    if (this.requests) {
      if (length < 8) return {};
      const op = b.readInt32BE(8);
      const name = OPS[op] ?? `op${op}`;
      const path = PATH_FIRST.has(op) ? pathOf(b, length) : undefined;
      return path === undefined ? { name } : { name, detail: path };
    }
    return length >= 4 && b.readInt32BE(4) === WATCH_EVENT_XID ? { name: 'watchEvent', unsolicited: true } : {};
  }
}

/** The request's path; undefined for none (null or empty) or when the packet is too short to hold the length it gives. */
function pathOf(b: Buffer, length: number): string | undefined {
  const end = 4 + length;
  if (BODY_AT + 4 > end) return undefined;
  const n = b.readInt32BE(BODY_AT);
  if (n <= 0 || BODY_AT + 4 + n > end) return undefined;
  return b.toString('utf8', BODY_AT + 4, BODY_AT + 4 + n);
}
