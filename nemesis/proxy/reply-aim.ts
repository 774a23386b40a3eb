/**
 * One connection's requests and replies, paired in order, and the one reply a `drop-next-reply` aims at.
 *
 * Every framed connection counts its request frames and its (solicited) reply frames from its first byte, so the
 * n-th reply is known to answer the n-th request. When a request is aimed at, its reply's bytes are held back from
 * the client as they arrive (a reply may come in several TCP chunks, and its first bytes cannot be told from the
 * previous reply's tail until the framer has seen the end of that one): bytes of earlier replies are released as
 * soon as each is complete; the aimed reply, once complete, is dropped, and so is everything after it on that
 * connection — the client must not read a later reply as the answer to the lost one.
 */
import { type Frame, type FramerPair, FramingError } from './framing.ts';
import { HeldReplies } from './held-replies.ts';

/** A piece of the reply stream: bytes to deliver or to drop. */
export interface Piece {
  readonly bytes: Buffer;
  readonly drop: boolean;
  /** Bytes a hold keeps (hold-next-request's caught request): counted as held, like a mode's. */
  readonly held?: boolean;
}

/** The record of a drop: which request's reply was lost, as byte offsets in each direction's stream. */
export interface DroppedReply {
  readonly request: Frame;
  readonly reply: Frame;
}

/**
 * What a link asks of one connection's pairing, whichever way its protocol pairs replies with requests: by order
 * (ReplyAim, here) or by call (CallAim, call-aim.ts: gRPC's streams).
 */
export interface Aim {
  /** Why this connection can no longer be aimed at, if it cannot. */
  readonly lost: string | undefined;
  readonly dropped: DroppedReply | undefined;
  /** Whether an aim waits for its reply. */
  readonly waiting: boolean;
  /** Frames the client's bytes; returns the requests they completed, each with its index on this connection. */
  requestBytes(chunk: Buffer): Array<{ index: number; frame: Frame }>;
  /** Aims at this request: its reply will be dropped. */
  aim(index: number, request: Frame): void;
  /** The server's bytes, split into what the client may have and what is dropped (see ReplyAim.replyBytes). */
  replyBytes(chunk: Buffer, replyIs?: string, passed?: () => void): Piece[];
  /** Gives up a waiting aim: what was held back goes to the client. */
  cancel(): Piece[];
}

export class ReplyAim implements Aim {
  private requests = 0;
  private replies = 0;
  /** Set when a framer threw: the connection is no longer framed, and is never aimed at. */
  private lostBecause: string | undefined;
  private aimed: { index: number; request: Frame } | undefined;
  private droppedReply: DroppedReply | undefined;
  /** Reply bytes read and not yet released. */
  private readonly held = new HeldReplies();
  /** Stream offset up to which the reply stream may be released while an aim waits: the last complete reply's end. */
  private releasable = 0;

  constructor(private readonly framers: FramerPair) {}

  /** Why this connection can no longer be aimed at, if it cannot. */
  get lost(): string | undefined {
    return this.lostBecause;
  }

  get dropped(): DroppedReply | undefined {
    return this.droppedReply;
  }

  /** Frames the client's bytes; returns the requests they completed, each with its index on this connection. */
  requestBytes(chunk: Buffer): Array<{ index: number; frame: Frame }> {
    if (this.lostBecause !== undefined) return [];
    try {
      return this.framers.requests.feed(chunk).map((frame) => ({ index: this.requests++, frame }));
    } catch (err) {
      this.lose(err);
      return [];
    }
  }

  /** Aims at the request with this index: its reply will be dropped. */
  aim(index: number, request: Frame): void {
    if (this.aimed === undefined && this.lostBecause === undefined) this.aimed = { index, request };
  }

  /** Whether an aim waits for its reply (the connection's replies are being held back meanwhile). */
  get waiting(): boolean {
    return this.aimed !== undefined && this.droppedReply === undefined;
  }

  /**
   * The server's bytes, split into what the client may have and what is dropped. With `replyIs`, the aimed reply is
   * dropped only if it begins with those bytes; otherwise it is delivered like any other, the aim is given up and
   * `passed` is called (the proxy arms its shot again for a later request).
   */
  replyBytes(chunk: Buffer, replyIs?: string, passed?: () => void): Piece[] {
    if (this.droppedReply !== undefined) return [{ bytes: chunk, drop: true }];
    let frames: Frame[] = [];
    if (this.lostBecause === undefined) {
      try {
        frames = this.framers.replies.feed(chunk);
      } catch (err) {
        this.lose(err);
      }
    }
    this.held.add(chunk);
    for (const frame of frames) {
      if (frame.unsolicited) continue;
      const index = this.replies++;
      if (this.aimed !== undefined && index === this.aimed.index) {
        if (replyIs === undefined || this.begins(frame, replyIs)) return this.drop(frame);
        this.aimed = undefined;
        passed?.();
      }
      this.releasable = frame.end;
    }
    if (!this.waiting) return this.held.release(this.held.end);
    return this.held.release(this.releasable);
  }

  /** Gives up a waiting aim (the mode was healed before the reply came): what was held back goes to the client. */
  cancel(): Piece[] {
    if (!this.waiting) return [];
    this.aimed = undefined;
    return this.held.release(this.held.end);
  }

  /** Whether the reply frame (all of it held) begins with `prefix`. */
  private begins(reply: Frame, prefix: string): boolean {
    return this.held.slice(reply.start, prefix.length).toString('latin1') === prefix;
  }

  private drop(reply: Frame): Piece[] {
    this.droppedReply = { request: this.aimed!.request, reply };
    return this.held.dropFrom(reply.start);
  }

  private lose(err: unknown): void {
    if (!(err instanceof FramingError)) throw err;
    this.lostBecause = err.message;
    this.aimed = undefined; // nothing can be aimed at without framing: release what was held
  }
}
