import { isRecord } from '../common/is-record.ts';
import type { Op } from './op.ts';

/**
 * The one codec of a run's history file (store/run-dir.ts names it): one op per line, JSON. Two policies over the same line decoder:
 *
 * - strict (`parseHistory`): for checking. A bad line is an error naming its line number, because a verdict
 *   about a history with lines silently missing would be about a different history.
 * - tolerant (`parseHistoryTolerant`): for pages. It keeps the good lines and lists the bad ones, because a report
 *   of a crashed or hand-edited run must still open.
 *
 * Both drop a cut-off *last* line and say so (`truncatedTail`): the journal writes each op with one write(2), so a
 * crash of the harness can cut only the line being written, and everything before it is intact.
 */
export interface ParsedHistory {
  ops: Op[];
  /** A last line cut short by a crash mid-write is dropped and reported here rather than failing the read. */
  truncatedTail: boolean;
}

export interface BadLine {
  /** 1-based, as an editor shows it. */
  line: number;
  reason: string;
  /** The start of the line, to recognise it by. */
  text: string;
}

export interface TolerantParse extends ParsedHistory {
  badLines: BadLine[];
}

/** A line that is not an op of ours: the error names its line so the user can open the file there. */
export class HistoryLineError extends Error {
  readonly kind = 'history-line';
  constructor(readonly bad: BadLine) {
    super(`history line ${bad.line} ${bad.reason}: ${bad.text}`);
  }
}

const SHOWN_CHARS = 80;

type Decoded = { op: Op } | { reason: string; unparseable: boolean };

/** An op is a JSON object with a numeric `time`: everything downstream sorts and draws by it. */
function decodeLine(line: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { reason: 'is not JSON', unparseable: true };
  }
  if (!isRecord(value)) return { reason: 'is not an op (a JSON object)', unparseable: false };
  if (typeof value.time !== 'number') return { reason: 'is not an op (no numeric time)', unparseable: false };
  return { op: value as unknown as Op };
}

/**
 * The decoder, fed one line at a time — by a file read in chunks (reader.ts: a history can outgrow the longest
 * string V8 makes, 512 MiB, in a long run) or by a string split into lines. An unparseable line is held until the
 * next non-empty one shows it was not the last: only a cut-off *last* line is a truncated tail.
 */
export class HistoryDecoder {
  private lineNo = 0;
  private held: BadLine | null = null;
  private readonly ops: Op[] = [];

  constructor(private readonly onBad: (bad: BadLine) => void) {}

  line(raw: string): void {
    this.lineNo++;
    const line = raw.trim();
    if (!line) return;
    if (this.held) {
      const bad = this.held;
      this.held = null;
      this.onBad(bad);
    }
    const decoded = decodeLine(line);
    if ('op' in decoded) {
      this.ops.push(decoded.op);
      return;
    }
    const bad = { line: this.lineNo, reason: decoded.reason, text: line.slice(0, SHOWN_CHARS) };
    if (decoded.unparseable) this.held = bad;
    else this.onBad(bad);
  }

  end(): ParsedHistory {
    return { ops: this.ops, truncatedTail: this.held !== null };
  }
}

/** The strict policy: throws `HistoryLineError` at the first bad line. */
export const strict = (bad: BadLine): never => {
  throw new HistoryLineError(bad);
};

function parse(text: string, onBad: (bad: BadLine) => void): ParsedHistory {
  const decoder = new HistoryDecoder(onBad);
  for (const line of text.split('\n')) decoder.line(line);
  return decoder.end();
}

/** Strict: throws `HistoryLineError` at the first bad line (other than a cut-off last line). */
export function parseHistory(text: string): ParsedHistory {
  return parse(text, strict);
}

/** Tolerant: every good line, and the bad ones listed with their line numbers. */
export function parseHistoryTolerant(text: string): TolerantParse {
  const badLines: BadLine[] = [];
  const parsed = parse(text, (bad) => badLines.push(bad));
  return { ...parsed, badLines };
}

/** `<file>: 2 malformed line(s) skipped (lines 3, 9)`: what a page says about a tolerant parse. */
export function describeBadLines(file: string, badLines: readonly BadLine[]): string {
  const shown = badLines.slice(0, 5).map((b) => b.line);
  const more = badLines.length > shown.length ? `, … ${badLines.length - shown.length} more` : '';
  return `${file}: ${badLines.length} malformed line(s) skipped (line${shown.length > 1 ? 's' : ''} ${shown.join(', ')}${more})`;
}
