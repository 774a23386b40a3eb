/**
 * HTTP/2's framing layer (RFC 9113 §3.4, §4): one direction of one connection cut into whole frames, each a 9-byte
 * header — length (24 bits), type, flags, stream id (31 bits) — and its payload. The client's direction begins with
 * the 24-byte connection preface; the server's with a SETTINGS frame. Either missing means the bytes are not
 * cleartext HTTP/2 (a target's etcd over TLS): `FramingError`, and the connection is no longer framed.
 */
import { FramingError, Unframed } from './framing.ts';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const HEADER_BYTES = 9;

export const DATA = 0;
export const HEADERS = 1;
export const RST_STREAM = 3;
export const SETTINGS = 4;
export const CONTINUATION = 9;

export const END_STREAM = 0x1;
export const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;

export interface H2Frame {
  /** Offsets in this direction's byte stream: [start, end). */
  readonly start: number;
  readonly end: number;
  readonly type: number;
  readonly flags: number;
  readonly stream: number;
  readonly payload: Buffer;
}

export class H2FrameReader {
  private readonly buffer = new Unframed();
  private prefaceDue: boolean;
  private first = true;

  /** `client`: the client's direction, which opens with the connection preface. */
  constructor(private readonly client: boolean) {
    this.prefaceDue = client;
  }

  feed(bytes: Buffer): H2Frame[] {
    this.buffer.append(bytes);
    const frames: H2Frame[] = [];
    if (this.prefaceDue) {
      const b = this.buffer.bytes;
      const n = Math.min(b.length, PREFACE.length);
      if (!b.subarray(0, n).equals(PREFACE.subarray(0, n)))
        throw new FramingError('HTTP/2', this.buffer.offset, 'no client connection preface');
      if (n < PREFACE.length) return frames;
      this.buffer.consume(PREFACE.length);
      this.prefaceDue = false;
    }
    for (;;) {
      const b = this.buffer.bytes;
      if (b.length < HEADER_BYTES) return frames;
      const length = b.readUIntBE(0, 3);
      const type = b[3];
      if (this.first && !this.client && type !== SETTINGS)
        throw new FramingError('HTTP/2', this.buffer.offset, `the server's first frame is type ${type}, not SETTINGS`);
      if (b.length < HEADER_BYTES + length) return frames;
      const flags = b[4];
      const stream = b.readUInt32BE(5) & 0x7fffffff;
      const payload = b.subarray(HEADER_BYTES, HEADER_BYTES + length);
      const { start, end } = this.buffer.consume(HEADER_BYTES + length);
      frames.push({ start, end, type, flags, stream, payload });
      this.first = false;
    }
  }
}

/** A HEADERS frame's header block fragment: its payload without padding and priority fields (§6.2). */
export function headerFragment(f: H2Frame): Buffer {
  let from = 0;
  let padding = 0;
  if (f.flags & PADDED) padding = f.payload[from++] ?? 0;
  if (f.flags & PRIORITY) from += 5;
  return unpad(f, from, padding);
}

/** A DATA frame's data: its payload without padding (§6.1). */
export function dataOf(f: H2Frame): Buffer {
  return f.flags & PADDED ? unpad(f, 1, f.payload[0] ?? 0) : f.payload;
}

function unpad(f: H2Frame, from: number, padding: number): Buffer {
  const to = f.payload.length - padding;
  if (to < from)
    throw new FramingError('HTTP/2', f.start, `padding of ${padding} beyond a ${f.payload.length}-byte payload`);
  return f.payload.subarray(from, to);
}
