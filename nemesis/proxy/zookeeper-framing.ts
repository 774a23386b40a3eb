/**
 * ZooKeeper framing: every packet both ways is an int32 length and that many bytes. The first request is the
 * ConnectRequest and the first reply its ConnectResponse (no header). After that a request starts with xid and
 * op code, a reply with xid, zxid and error; the server answers requests in order. A reply with xid -1 is a watch
 * event, sent unasked: it answers no request. Pings (xid -2) are requests with replies like any other, so an aim
 * that names an op (`create`) passes them by.
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
      return { name: OPS[op] ?? `op${op}` };
    }
    return length >= 4 && b.readInt32BE(4) === WATCH_EVENT_XID ? { name: 'watchEvent', unsolicited: true } : {};
  }
}
