import { StringDecoder } from 'node:string_decoder';

/**
 * Lines of a stream from a process we do not trust to end them, each at most `maxBytes`: readline keeps a line that
 * never ends in memory until the process dies (a lock process that wrote 700 MiB with no newline took the harness to
 * 3.3 GB and a crash). The part of a line past `maxBytes` is never held: `overlong` gets the line's first
 * `maxBytes` as soon as the line grows past them (not when it ends: it may never end), and the rest of that line is
 * dropped up to its newline.
 */
export class BoundedLines {
  private readonly decoder = new StringDecoder('utf8');
  private parts: Buffer[] = [];
  private held = 0;
  /** The current line went past the limit: said already, skipped up to its newline. */
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly line: (text: string) => void,
    private readonly overlong: (head: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let at = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, at);
      const piece = chunk.subarray(at, nl < 0 ? chunk.length : nl);
      this.hold(piece);
      if (nl < 0) return;
      this.endLine();
      at = nl + 1;
    }
  }

  /** The stream ended: a last line without a newline is still a line. */
  end(): void {
    if (this.held) this.endLine();
    this.skipping = false;
  }

  private hold(piece: Buffer): void {
    if (this.skipping) return;
    const room = this.maxBytes - this.held;
    if (piece.length <= room) {
      if (piece.length) this.parts.push(piece);
      this.held += piece.length;
      return;
    }
    this.parts.push(piece.subarray(0, room));
    this.skipping = true;
    this.overlong(this.take());
  }

  private endLine(): void {
    if (this.skipping) this.skipping = false;
    else this.line(this.take().replace(/\r$/, ''));
  }

  /** The held bytes as text (decoded whole: a character split across chunks stays one), and nothing held after. */
  private take(): string {
    const text = this.decoder.write(Buffer.concat(this.parts)) + this.decoder.end();
    this.parts = [];
    this.held = 0;
    return text;
  }
}
