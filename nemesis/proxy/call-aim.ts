/**
 * One connection's requests and replies paired by call, not by order: gRPC over HTTP/2, where every call is a stream
 * of its own on the shared connection and the server answers them in whatever order they finish (grpc-framing.ts
 * names each request and reply frame's call, `<stream>/<message>`).
 *
 * While an aim waits, server frames of other calls and of the connection itself (SETTINGS, PING, WINDOW_UPDATE) go
 * to the client as soon as each is whole. From the aimed call's first reply frame on (its response headers, as a
 * rule), everything the server sends on the connection is held back until the answer is whole — the answer says
 * whether the server acted (with `replyIs`: a Txn that `succeeded`) — then it is dropped with all that follows it on
 * the connection, or, when the answer does not begin with `replyIs` or the call ended without one (an error status,
 * a reset stream), delivered, the aim given up and `passed` called.
 *
 * Why everything after the drop goes too, and the connection is then reset rather than kept: HTTP/2 cannot lose one
 * frame quietly. The server's HEADERS are HPACK-coded against a table the client's decoder keeps in step — a dropped
 * HEADERS block leaves the client decoding later headers against the wrong table — and dropped DATA is still counted
 * in the connection's flow-control window, which the client would never reopen. A client that read on after a hole
 * would fail in ways no real network makes; one whose connection resets right after its reply was lost is what a
 * real network does make.
 */
import { type Frame, type FramerPair, FramingError } from './framing.ts';
import type { Aim, DroppedReply, Piece } from './reply-aim.ts';
import { HeldReplies } from './held-replies.ts';

export class CallAim implements Aim {
  private requests = 0;
  private lostBecause: string | undefined;
  private aimed: Frame | undefined;
  /** Stream offset of the aimed call's first reply frame, once it came: the server's bytes are held from there. */
  private holdingFrom: number | undefined;
  private droppedReply: DroppedReply | undefined;
  /** Reply bytes read and not yet released. */
  private readonly held = new HeldReplies();
  /** The end of the last whole reply frame: what may be released while an aim waits and nothing is held. */
  private releasable = 0;

  constructor(private readonly framers: FramerPair) {}

  get lost(): string | undefined {
    return this.lostBecause;
  }

  get dropped(): DroppedReply | undefined {
    return this.droppedReply;
  }

  get waiting(): boolean {
    return this.aimed !== undefined && this.droppedReply === undefined;
  }

  requestBytes(chunk: Buffer): Array<{ index: number; frame: Frame }> {
    if (this.lostBecause !== undefined) return [];
    try {
      return this.framers.requests.feed(chunk).map((frame) => ({ index: this.requests++, frame }));
    } catch (err) {
      this.lose(err);
      return [];
    }
  }

  aim(_index: number, request: Frame): void {
    if (this.aimed === undefined && this.lostBecause === undefined && request.call !== undefined) this.aimed = request;
  }

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
      if (!this.waiting || frame.call === undefined || frame.call !== this.aimed!.call) {
        if (this.holdingFrom === undefined) this.releasable = frame.end;
        continue;
      }
      this.holdingFrom ??= frame.start;
      const decided = frame.answer === 'none' || frame.answer === 'whole' || replyIs === undefined;
      if (!decided) continue;
      if (frame.answer !== 'none' && (replyIs === undefined || frame.detail?.startsWith(replyIs)))
        return this.drop(frame);
      this.aimed = undefined;
      this.holdingFrom = undefined;
      passed?.();
    }
    if (!this.waiting) return this.held.release(this.held.end);
    return this.held.release(this.holdingFrom ?? this.releasable);
  }

  cancel(): Piece[] {
    if (!this.waiting) return [];
    this.aimed = undefined;
    this.holdingFrom = undefined;
    return this.held.release(this.held.end);
  }

  private drop(answer: Frame): Piece[] {
    const from = this.holdingFrom!;
    this.droppedReply = { request: this.aimed!, reply: { ...answer, start: from } };
    return this.held.dropFrom(from);
  }

  private lose(err: unknown): void {
    if (!(err instanceof FramingError)) throw err;
    this.lostBecause = err.message;
    this.aimed = undefined;
    this.holdingFrom = undefined;
  }
}
