/** The part of a terminal stream a status line writes to (process.stderr, or a test's recorder). */
export interface StatusStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** ANSI: back to the start of the row, and erase it. */
const CLEAR_ROW = '\r\x1b[2K';

/**
 * A progress line kept at the bottom of a terminal while sentences scroll above it. Every sentence first erases the
 * progress line, takes its own row, and the progress line is drawn again under it — so a fault's sentence is never
 * glued to the end of the progress line (issue 50: 18 of 26 sentences of a first run were). The progress line is cut
 * to the terminal's width: a line that wrapped would leave its first rows behind, since `\r` returns only to the
 * start of the last one. On a stream that is no terminal there is no line to keep: sentences and progress are each
 * a line of their own.
 */
export class StatusLine {
  private shown: string | null = null;

  constructor(private readonly stream: StatusStream) {}

  get tty(): boolean {
    return this.stream.isTTY === true;
  }

  /** A sentence of the run's log, on its own row above the progress line. */
  say(sentence: string): void {
    if (!this.tty || this.shown === null) return void this.stream.write(`${sentence}\n`);
    this.stream.write(`${CLEAR_ROW}${sentence}\n${this.shown}`);
  }

  /** The progress line, drawn in place of the last one (a terminal), or as one more line (anything else). */
  show(progress: string): void {
    if (!this.tty) return void this.stream.write(`${progress}\n`);
    const width = this.stream.columns && this.stream.columns > 1 ? this.stream.columns - 1 : Infinity;
    this.shown = progress.length > width ? `${progress.slice(0, width - 1)}…` : progress;
    this.stream.write(`${CLEAR_ROW}${this.shown}`);
  }

  /** The progress line stays as it is, and what follows starts on the next row. */
  end(): void {
    if (this.shown !== null) this.stream.write('\n');
    this.shown = null;
  }
}
