/**
 * RESP framing (Redis). Requests: arrays of bulk strings (`*2\r\n$3\r\nGET\r\n$1\r\nk\r\n`) or inline commands
 * (`PING\r\n`); a request's name is its first word, upper-cased, and its detail the second bulk, if any (a key, or
 * an `EVAL`'s script: what tells a release script, which deletes, from a renewal's, which extends); a `SET`'s value
 * (its third bulk) is kept too, and an `EVAL`'s keys and arguments, so an acquire's effect can be read back from the
 * server. Replies: every RESP2 type (simple string, error,
 * integer, bulk, array, nulls) and RESP3's (null, double, boolean, big number, verbatim string, blob error, map,
 * set, attribute, push). A RESP3 push (`>`) answers no request and is marked unsolicited; an attribute (`|`) is
 * part of the reply it precedes.
 *
 * Not handled: RESP2 pub/sub messages look like replies (arrays) and would be counted as such, so a subscribed
 * connection must not be aimed at; nor one after `CLIENT REPLY OFF|SKIP` (requests with no reply).
 */
import { type Frame, type Framer, type Framing, FramingError, Unframed } from './framing.ts';

const PROTOCOL = 'RESP';
const CRLF = '\r\n';
const TYPES = '+-:_,#($=!*~>%|';

export const respFraming: Framing = {
  protocol: PROTOCOL,
  open: () => ({ requests: new RespRequests(), replies: new RespReplies() }),
};

class RespRequests implements Framer {
  private readonly buffer = new Unframed();

  feed(bytes: Buffer): Frame[] {
    this.buffer.append(bytes);
    const frames: Frame[] = [];
    for (;;) {
      const b = this.buffer.bytes;
      if (b.length === 0) return frames;
      if (b[0] === 0x2a /* '*' */) {
        const end = skipValue(b, 0, this.buffer.offset);
        if (end < 0) return frames;
        const [name, detail, value] = firstBulks(b);
        const what =
          detail === undefined
            ? { name }
            : name === 'SET' && value !== undefined
              ? { name, detail, value }
              : name === 'EVAL' || name === 'EVALSHA'
                ? { name, detail, ...scriptKeysAndArgs(b) }
                : { name, detail };
        frames.push(this.buffer.consume(end, what));
        continue;
      }
      const eol = b.indexOf('\n');
      if (eol < 0) return frames;
      const words = b.subarray(0, eol).toString('latin1').trim();
      // Redis ignores an empty inline line without a reply, so it is no request.
      if (words === '') this.buffer.consume(eol + 1);
      else frames.push(this.buffer.consume(eol + 1, { name: words.split(/\s+/)[0].toUpperCase() }));
    }
  }
}

class RespReplies implements Framer {
  private readonly buffer = new Unframed();

  feed(bytes: Buffer): Frame[] {
    this.buffer.append(bytes);
    const frames: Frame[] = [];
    for (;;) {
      const b = this.buffer.bytes;
      const end = skipValue(b, 0, this.buffer.offset);
      if (end < 0) return frames;
      frames.push(this.buffer.consume(end, b[0] === 0x3e /* '>' */ ? { unsolicited: true } : {}));
    }
  }
}

/** The end of the value that starts at `p`, or -1 when `b` does not hold all of it yet. */
function skipValue(b: Buffer, p: number, streamOffset: number): number {
  if (p >= b.length) return -1;
  const type = String.fromCharCode(b[p]);
  // Checked before the line is whole, so bytes that are not RESP are refused at once, not held waiting for a CRLF.
  if (!TYPES.includes(type))
    throw new FramingError(PROTOCOL, streamOffset + p, `no RESP type starts with byte 0x${b[p].toString(16)}`);
  const eol = b.indexOf(CRLF, p + 1);
  if (eol < 0) return -1;
  const after = eol + 2;
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
      return after;
    case '$':
    case '=':
    case '!': {
      const n = lengthAt(b, p, eol, streamOffset);
      if (n < 0) return after; // $-1: the RESP2 null bulk string
      const end = after + n + 2;
      if (end > b.length) return -1;
      if (b[end - 2] !== 0x0d || b[end - 1] !== 0x0a)
        throw new FramingError(PROTOCOL, streamOffset + end - 2, 'bulk string not followed by CRLF');
      return end;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const n = lengthAt(b, p, eol, streamOffset);
      const elements = type === '%' || type === '|' ? 2 * n : n; // a map's or attribute's n counts pairs
      let q = after;
      for (let i = 0; i < elements; i++) {
        q = skipValue(b, q, streamOffset);
        if (q < 0) return -1;
      }
      return type === '|' ? skipValue(b, q, streamOffset) : q;
    }
    default:
      throw new FramingError(PROTOCOL, streamOffset + p, `no RESP type starts with byte 0x${b[p].toString(16)}`);
  }
}

function lengthAt(b: Buffer, p: number, eol: number, streamOffset: number): number {
  const text = b.subarray(p + 1, eol).toString('latin1');
  if (!/^-?\d+$/.test(text)) throw new FramingError(PROTOCOL, streamOffset + p, `bad length ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * A multi-bulk request's first bulk (upper-cased: the command), its second (the key, or EVAL's script) and its third
 * (SET's value), where present.
 */
function firstBulks(b: Buffer): [string | undefined, string | undefined, string | undefined] {
  const first = bulkAt(b, b.indexOf(CRLF) + 2);
  if (first === undefined) return [undefined, undefined, undefined];
  const second = bulkAt(b, first.end);
  const third = second && bulkAt(b, second.end);
  return [first.text.toUpperCase(), second?.text, third?.text];
}

/**
 * An EVAL's (EVALSHA's) keys and arguments: `EVAL script numkeys key… arg…`. What a plugin's acquire script wrote
 * is read back from them (reply-loss-acquire): the key it names, and the owner among its arguments. Empty lists where
 * the request does not parse as that (a numkeys that is no number).
 */
function scriptKeysAndArgs(b: Buffer): { keys: string[]; args: string[] } {
  const bulks: string[] = [];
  for (let p = b.indexOf(CRLF) + 2, next = bulkAt(b, p); next; p = next.end, next = bulkAt(b, p)) bulks.push(next.text);
  const numkeys = Number(bulks[2]);
  if (!Number.isInteger(numkeys) || numkeys < 0 || 3 + numkeys > bulks.length) return { keys: [], args: [] };
  return { keys: bulks.slice(3, 3 + numkeys), args: bulks.slice(3 + numkeys) };
}

/** The bulk string whose `$` header starts at `p`, and where the next value starts; undefined if none is there. */
function bulkAt(b: Buffer, p: number): { text: string; end: number } | undefined {
  if (b[p] !== 0x24 /* '$' */) return undefined;
  const lenEnd = b.indexOf(CRLF, p);
  const n = Number(b.subarray(p + 1, lenEnd).toString('latin1'));
  if (!(n > 0) || lenEnd + 2 + n > b.length) return undefined;
  return { text: b.subarray(lenEnd + 2, lenEnd + 2 + n).toString('latin1'), end: lenEnd + 2 + n + 2 };
}
