/**
 * Request and reply framing: what lets the proxy aim at *one* request on a connection that carries many (a
 * pipelined client, a heartbeat beside the lock's own command) and drop exactly that request's reply.
 *
 * A framer reads one direction of one connection, in order, however TCP cut it: `feed` takes the next bytes and
 * returns the frames those bytes completed, with their offsets in the direction's byte stream. Bytes of a frame not
 * yet complete stay inside the framer until the rest arrives. A framer that meets bytes its protocol does not allow
 * (TLS after Postgres' `S`, a client speaking another protocol) throws `FramingError`; the link then stops framing
 * and per-request modes skip it, rather than guess.
 */

export interface Frame {
  /** Offsets in this direction's byte stream, from the connection's first byte: [start, end). */
  readonly start: number;
  readonly end: number;
  /** The command, where the framing knows it: RESP `SET`, Postgres `Query`, ZooKeeper `create`. */
  readonly name?: string;
  /** More of the request where the framing has it: a Postgres statement's SQL text. */
  readonly detail?: string;
  /** RESP `SET`'s value (its third bulk): what a lock's acquire wrote, to be read back from the server. */
  readonly value?: string;
  /** RESP `EVAL`'s keys and arguments (`EVAL script numkeys key… arg…`): what a plugin's acquire script wrote. */
  readonly keys?: readonly string[];
  readonly args?: readonly string[];
  /**
   * A reply-side frame that answers no request: a RESP3 push, a ZooKeeper watch event (xid -1). Replies pair with
   * requests in order, skipping these.
   */
  readonly unsolicited?: boolean;
  /** etcd: the key a request names (a Txn's put or delete), the lease a put attaches it to or a keep-alive renews. */
  readonly key?: string;
  readonly lease?: string;
  /** etcd: the create revision a Txn's compare requires of its key (a release's: the holder's incarnation of it). */
  readonly revision?: string;
  /**
   * For protocols whose replies pair by call rather than by order (gRPC over HTTP/2: `<stream id>/<message number on
   * that stream>`): the call a request frame opens and a reply frame answers.
   */
  readonly call?: string;
  /**
   * A reply frame of a call: `part` of its answer (response headers, a message not yet whole), the frame that makes
   * it `whole` (`detail` then summarizes the answer), or the call's end with `none` (an error status, a reset stream).
   */
  readonly answer?: 'part' | 'whole' | 'none';
}

export interface Framer {
  feed(bytes: Buffer): Frame[];
}

/** One connection's two framers. The n-th reply frame that is not unsolicited answers the n-th request frame. */
export interface FramerPair {
  readonly requests: Framer;
  readonly replies: Framer;
}

/**
 * One protocol. `open` gives a connection its pair; the two may share state (Postgres: the reply to an SSLRequest is
 * one byte, which the reply framer can only tell from a notice by knowing the request was sent).
 */
export interface Framing {
  readonly protocol: string;
  /** How replies find their requests: in order (the default), or by the `call` their frames carry (call-aim.ts). */
  readonly pairsBy?: 'order' | 'call';
  open(): FramerPair;
}

export class FramingError extends Error {
  constructor(protocol: string, offset: number, why: string) {
    super(`${protocol} framing lost at byte ${offset}: ${why}`);
    this.name = 'FramingError';
  }
}

/**
 * The buffer every framer keeps: bytes fed and not yet part of a complete frame, and the stream offset of the first.
 * A framer parses from `bytes` and calls `consume(n)` for each frame it completes.
 */
export class Unframed {
  bytes: Buffer = Buffer.alloc(0);
  /** Stream offset of bytes[0]. */
  offset = 0;

  append(chunk: Buffer): void {
    this.bytes = this.bytes.length === 0 ? chunk : Buffer.concat([this.bytes, chunk]);
  }

  /** Takes the first `n` bytes as a frame and returns it. */
  consume(n: number, facts: Omit<Frame, 'start' | 'end'> = {}): Frame {
    const frame: Frame = { start: this.offset, end: this.offset + n, ...facts };
    this.bytes = this.bytes.subarray(n);
    this.offset += n;
    return frame;
  }
}
