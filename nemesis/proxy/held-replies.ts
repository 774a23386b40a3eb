import type { Piece } from './reply-aim.ts';

/**
 * The server's bytes an aim holds back from the client, as one stretch of its reply stream: appended as they arrive,
 * released up to a stream offset once they are known to answer something other than the aimed request, or — the
 * aimed reply found — released up to its start with the rest dropped. ReplyAim (requests paired by order) and CallAim
 * (gRPC calls paired by stream) hold their bytes the same way.
 */
export class HeldReplies {
  private bytes: Buffer = Buffer.alloc(0);
  /** The stream offset of the first held byte. */
  private offset = 0;

  /** The stream offset just past the last held byte. */
  get end(): number {
    return this.offset + this.bytes.length;
  }

  add(chunk: Buffer): void {
    this.bytes = this.bytes.length === 0 ? chunk : Buffer.concat([this.bytes, chunk]);
  }

  /** `length` held bytes from stream offset `at`. */
  slice(at: number, length: number): Buffer {
    const from = at - this.offset;
    return this.bytes.subarray(from, from + length);
  }

  /** The held bytes up to stream offset `upTo`, for the client. */
  release(upTo: number): Piece[] {
    const n = upTo - this.offset;
    if (n <= 0) return [];
    const bytes = this.bytes.subarray(0, n);
    this.bytes = this.bytes.subarray(n);
    this.offset = upTo;
    return [{ bytes, drop: false }];
  }

  /** The bytes before stream offset `from` for the client, and every held byte from there on dropped. */
  dropFrom(from: number): Piece[] {
    const before = this.release(from);
    const rest = this.bytes;
    this.bytes = Buffer.alloc(0);
    return rest.length > 0 ? [...before, { bytes: rest, drop: true }] : before;
  }
}
