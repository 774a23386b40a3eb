/**
 * gRPC over HTTP/2 framing (etcd's clients): every call is a stream on one shared connection, so a request is not
 * "the next bytes" and its reply not "the next reply" — lease keep-alives, watches and the lock's own Txn interleave.
 * Requests are named by their stream's `:path` (HPACK-decoded from the client's HEADERS and CONTINUATIONs, one decoder
 * for the whole connection so its dynamic table stays in step) and by their message (etcd-calls.ts): a request frame
 * is emitted when a client message on a stream is whole — the n-th on stream s is call `s/n`. Every server frame is
 * emitted as a reply frame; one on a call's stream carries the call it belongs to (`s/n` for the answer to the n-th
 * message: response headers are part of the next answer), so replies pair with requests by call (call-aim.ts).
 *
 * A gRPC message is a 5-byte prefix (a compressed flag, a 4-byte length) and its bytes, cut across DATA frames
 * however the sender liked. A compressed message is counted but not read (etcd's clients do not compress).
 */
import { answerDetail, requestFacts } from './etcd-calls.ts';
import { type Frame, type Framer, type Framing, FramingError } from './framing.ts';
import { HpackDecoder } from './hpack.ts';
import {
  CONTINUATION,
  DATA,
  END_HEADERS,
  END_STREAM,
  HEADERS,
  type H2Frame,
  H2FrameReader,
  RST_STREAM,
  dataOf,
  headerFragment,
} from './http2-frames.ts';

const PROTOCOL = 'gRPC';
const MESSAGE_PREFIX_BYTES = 5;
/** gRPC's default limit is 4 MiB; etcd's --max-request-bytes 1.5 MiB. Far past both is not a gRPC message. */
const MAX_MESSAGE_BYTES = 64 << 20;

export const grpcFraming: Framing = {
  protocol: PROTOCOL,
  pairsBy: 'call',
  open() {
    // The reply side summarizes an answer by its call's method, which only the request side read.
    const paths = new Map<number, string>();
    return { requests: new GrpcRequests(paths), replies: new GrpcReplies(paths) };
  },
};

/** One stream's messages in one direction, as DATA frames bring their bytes. */
class GrpcMessages {
  private bytes: Buffer = Buffer.alloc(0);
  /** Whole messages so far. */
  count = 0;

  /** Adds a DATA frame's data; returns the messages it completed (undefined for a compressed one: not read). */
  push(data: Buffer, at: number): Array<Buffer | undefined> {
    this.bytes = this.bytes.length ? Buffer.concat([this.bytes, data]) : data;
    const whole: Array<Buffer | undefined> = [];
    while (this.bytes.length >= MESSAGE_PREFIX_BYTES) {
      const length = this.bytes.readUInt32BE(1);
      if (length > MAX_MESSAGE_BYTES) throw new FramingError(PROTOCOL, at, `a message of ${length} bytes`);
      if (this.bytes.length < MESSAGE_PREFIX_BYTES + length) break;
      const message = this.bytes.subarray(MESSAGE_PREFIX_BYTES, MESSAGE_PREFIX_BYTES + length);
      whole.push(this.bytes[0] === 0 ? message : undefined);
      this.bytes = this.bytes.subarray(MESSAGE_PREFIX_BYTES + length);
      this.count++;
    }
    return whole;
  }
}

interface ClientStream {
  readonly path: string;
  /** Where its HEADERS began: the first request's frame starts there. */
  readonly opened: number;
  readonly messages: GrpcMessages;
}

class GrpcRequests implements Framer {
  private readonly reader = new H2FrameReader(true);
  private readonly hpack = new HpackDecoder();
  private readonly streams = new Map<number, ClientStream>();
  /** A header block still waiting for its CONTINUATIONs. */
  private block: { stream: number; start: number; parts: Buffer[]; ends: boolean } | undefined;

  constructor(private readonly paths: Map<number, string>) {}

  feed(bytes: Buffer): Frame[] {
    const frames: Frame[] = [];
    for (const f of this.reader.feed(bytes)) {
      if (this.block && f.type !== CONTINUATION)
        throw new FramingError(PROTOCOL, f.start, `frame type ${f.type} inside a header block`);
      if (f.type === HEADERS) {
        this.block = { stream: f.stream, start: f.start, parts: [headerFragment(f)], ends: !!(f.flags & END_STREAM) };
        if (f.flags & END_HEADERS) this.headersDone();
      } else if (f.type === CONTINUATION) {
        if (!this.block) throw new FramingError(PROTOCOL, f.start, 'a CONTINUATION without HEADERS');
        this.block.parts.push(f.payload);
        if (f.flags & END_HEADERS) this.headersDone();
      } else if (f.type === DATA) frames.push(...this.data(f));
      else if (f.type === RST_STREAM) this.streams.delete(f.stream);
    }
    return frames;
  }

  /** Every block is decoded, even one the proxy needs nothing from: the dynamic table must stay in step. */
  private headersDone(): void {
    const block = this.block!;
    this.block = undefined;
    const fields = this.hpack.decode(Buffer.concat(block.parts));
    if (this.streams.has(block.stream)) return; // trailers: gRPC clients send none
    const path = fields.find((h) => h.name === ':path')?.value ?? '';
    this.paths.set(block.stream, path);
    if (!block.ends) this.streams.set(block.stream, { path, opened: block.start, messages: new GrpcMessages() });
  }

  private data(f: H2Frame): Frame[] {
    const s = this.streams.get(f.stream);
    if (!s) return [];
    const frames: Frame[] = [];
    for (const message of s.messages.push(dataOf(f), f.start)) {
      const n = s.messages.count - 1 - frames.length;
      frames.push({
        start: n === 0 ? s.opened : f.start,
        end: f.end,
        name: s.path,
        call: `${f.stream}/${n}`,
        ...(message ? requestFacts(s.path, message) : { detail: `${s.path} (compressed)` }),
      });
    }
    if (f.flags & END_STREAM) this.streams.delete(f.stream);
    return frames;
  }
}

class GrpcReplies implements Framer {
  private readonly reader = new H2FrameReader(false);
  private readonly streams = new Map<number, GrpcMessages>();

  constructor(private readonly paths: Map<number, string>) {}

  feed(bytes: Buffer): Frame[] {
    return this.reader.feed(bytes).map((f) => {
      const frame = f.stream === 0 ? { start: f.start, end: f.end } : this.onStream(f);
      if (f.flags & END_STREAM || f.type === RST_STREAM) {
        this.streams.delete(f.stream);
        this.paths.delete(f.stream);
      }
      return frame;
    });
  }

  private onStream(f: H2Frame): Frame {
    let messages = this.streams.get(f.stream);
    if (!messages) this.streams.set(f.stream, (messages = new GrpcMessages()));
    const call = `${f.stream}/${messages.count}`;
    const base = { start: f.start, end: f.end, call };
    if (f.type === DATA) {
      const before = messages.count;
      // A frame that completes more than one message is told by its first: etcd writes one message per frame.
      const [first] = messages.push(dataOf(f), f.start);
      if (messages.count === before) return { ...base, answer: f.flags & END_STREAM ? 'none' : 'part' };
      const detail = first ? answerDetail(this.paths.get(f.stream), first) : undefined;
      return detail === undefined ? { ...base, answer: 'whole' } : { ...base, answer: 'whole', detail };
    }
    // Response headers begin the next answer; trailers (END_STREAM) after no answer end the call unanswered.
    if (f.type === HEADERS || f.type === CONTINUATION || f.type === RST_STREAM)
      return { ...base, answer: f.flags & END_STREAM || f.type === RST_STREAM ? 'none' : 'part' };
    return { start: f.start, end: f.end };
  }
}
