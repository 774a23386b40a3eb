/**
 * A lock process's stderr in a run, written to its client's log (the client's own stderr, logs/client-<n>.log)
 * within caps: a broken lock that logs a traceback in a loop wrote 1.9 GB in 2 s, and a full disk then stops the
 * journal. Each process may write LOCK_STDERR_BYTES, all lock processes of one client CLIENT_STDERR_BYTES; past a
 * cap, lines are counted and dropped, and the last few are kept — the end of a crash is what a reader needs — to be
 * written with a note when the process exits.
 */
import fs from 'node:fs';

export const LOCK_STDERR_BYTES = 1 << 20;
export const CLIENT_STDERR_BYTES = 16 << 20;
/** Lines kept from past a cap, written when the process exits. */
const TAIL_LINES = 20;

/** Bytes every lock process of this (client) process has written to its stderr so far. */
let clientBytes = 0;

export class StderrLog {
  private bytes = 0;
  private droppedLines = 0;
  private droppedBytes = 0;
  private tail: string[] = [];

  constructor(
    private readonly pid: number,
    private readonly write: (text: string) => void = (text) => fs.writeSync(2, text),
    private readonly clientCap = CLIENT_STDERR_BYTES,
  ) {}

  line(text: string): void {
    const out = `${text}\n`;
    const n = Buffer.byteLength(out);
    if (this.bytes + n <= LOCK_STDERR_BYTES && clientBytes + n <= this.clientCap) {
      this.bytes += n;
      clientBytes += n;
      this.write(out);
      return;
    }
    this.droppedLines++;
    this.droppedBytes += n;
    this.tail.push(text.slice(0, 300));
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  /** The process exited: say what was dropped, and write the last lines it wrote. */
  close(): void {
    if (!this.droppedLines) return;
    const cap =
      this.bytes + this.droppedBytes > LOCK_STDERR_BYTES
        ? `its cap of ${LOCK_STDERR_BYTES} bytes`
        : `its client's cap of ${this.clientCap} bytes for all its lock processes`;
    this.write(
      `[fencepost: dropped ${this.droppedLines} lines (${this.droppedBytes} bytes) of lock process ${this.pid}'s stderr past ${cap}; its last ${this.tail.length}:]\n${this.tail.join('\n')}\n`,
    );
    this.tail = [];
    this.droppedLines = 0;
  }
}

/** For tests: forget what earlier processes wrote. */
export function resetClientStderrBytes(): void {
  clientBytes = 0;
}
