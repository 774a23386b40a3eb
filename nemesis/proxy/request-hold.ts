/**
 * One connection's request stream while `hold-next-request` waits for its request: what may go to the server now,
 * and, once the aimed request is seen, the bytes the hold keeps — that request's own and everything after it.
 *
 * A request can only be named once its frame is whole, and its first bytes may have come in an earlier TCP chunk.
 * So while a hold is armed, the bytes of a request not yet whole wait here: a server acts on no request before its
 * last byte, so holding a partial frame back until it is whole changes nothing the server or the client can see.
 * Whole requests before the aimed one go on at once; from the aimed one's first byte on, everything is kept.
 */
import type { Frame } from './framing.ts';

/** What a read gives: bytes for the server now, bytes for the hold, and the request that began the hold. */
export interface HoldSplit {
  readonly pass: Buffer;
  readonly hold: Buffer;
  readonly caught?: Frame;
}

const EMPTY = Buffer.alloc(0);

export class RequestHold {
  private pending: Buffer = EMPTY;
  /** Stream offset of pending[0]. */
  private pendingAt = 0;
  private caughtFrame: Frame | undefined;

  /** The aimed request, once it was caught: the connection's requests are held from its first byte on. */
  get caught(): Frame | undefined {
    return this.caughtFrame;
  }

  /**
   * The client's next bytes and the request frames they completed (their offsets in the request stream).
   * `armed`: a hold waits for its request; `aims(frame)` says whether a frame is it (and takes the proxy's shot).
   */
  read(chunk: Buffer, frames: readonly Frame[], armed: boolean, aims: (f: Frame) => boolean): HoldSplit {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (this.caughtFrame !== undefined) return { pass: EMPTY, hold: this.take(this.pendingAt + this.pending.length) };
    if (!armed) return { pass: this.take(this.pendingAt + this.pending.length), hold: EMPTY };
    let whole = this.pendingAt;
    for (const frame of frames) {
      if (aims(frame)) {
        this.caughtFrame = frame;
        const pass = this.take(frame.start);
        return { pass, hold: this.take(this.pendingAt + this.pending.length), caught: frame };
      }
      whole = frame.end;
    }
    return { pass: this.take(whole), hold: EMPTY };
  }

  /** The hold is over (healed, or the framing was lost): what waited here goes on, and nothing more is held. */
  release(): Buffer {
    this.caughtFrame = undefined;
    return this.take(this.pendingAt + this.pending.length);
  }

  /** Takes pending bytes up to stream offset `upTo`. */
  private take(upTo: number): Buffer {
    const n = Math.max(0, upTo - this.pendingAt);
    const bytes = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    this.pendingAt += n;
    return bytes;
  }
}
