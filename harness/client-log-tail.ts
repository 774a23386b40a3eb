import fs from 'node:fs';

/** How much of a dead client's log is read for its last lines: its tail, not a log a lock process may have flooded. */
const TAIL_BYTES = 64 << 10;

/** The last `n` non-empty lines of a client's log (its stdout and stderr go there), from its last 64 KiB. */
export function lastLines(file: string, n: number): string[] {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, TAIL_BYTES));
      fs.readSync(fd, buf, 0, buf.length, size - buf.length);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-n)
    .map((l) => l.slice(0, 300));
}
