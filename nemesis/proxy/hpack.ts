/**
 * An HPACK decoder (RFC 7541) for one direction of one HTTP/2 connection: what lets the proxy read each gRPC call's
 * `:path` from the client's HEADERS. HPACK is stateful — an entry the client's encoder added to its dynamic table
 * is referred to later by index — so every header block of the connection must be decoded, in order, or the table
 * goes out of step and later paths read wrong. Hence one decoder per connection, fed every block.
 *
 * Written here rather than taken from npm: the one maintained-looking package, `hpack.js` (2.1.6, last published
 * 2018), is a stream-based compressor/decompressor pair with four runtime dependencies (readable-stream 2, obuf,
 * wbuf, inherits) and no types, for what is ~150 lines of decoding. Tested on RFC 7541 Appendix C's examples.
 */
import { FramingError } from './framing.ts';
import { huffmanDecode } from './hpack-huffman.ts';

export interface HeaderField {
  readonly name: string;
  readonly value: string;
}

/** RFC 7541 Appendix A: index 1 is the first entry. */
const STATIC_TABLE: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** An entry's size counts 32 octets of overhead beside its name and value (§4.1). */
const ENTRY_OVERHEAD = 32;
/** SETTINGS_HEADER_TABLE_SIZE's initial value (RFC 9113 §6.5.2): the table's limit until an update says otherwise. */
export const DEFAULT_TABLE_SIZE = 4096;
/** Far beyond any header a gRPC client sends: an integer past it means we are not reading HPACK. */
const MAX_INTEGER = 2 ** 28;

export class HpackDecoder {
  /** Newest first: dynamic index 1 (HPACK index 62) is the entry added last. */
  private readonly dynamic: HeaderField[] = [];
  private size = 0;
  constructor(private maxSize = DEFAULT_TABLE_SIZE) {}

  /** The dynamic table's entries, newest first, and its size in octets: for tests. */
  get table(): { entries: readonly HeaderField[]; size: number } {
    return { entries: [...this.dynamic], size: this.size };
  }

  /** Decodes one whole header block (a HEADERS frame's fragment and its CONTINUATIONs), updating the table. */
  decode(block: Buffer): HeaderField[] {
    const fields: HeaderField[] = [];
    const r = { at: 0 };
    while (r.at < block.length) {
      const first = block[r.at];
      if (first & 0x80) fields.push(this.entry(integer(block, r, 7)));
      else if (first & 0x40) {
        const field = this.literal(block, r, 6);
        this.add(field);
        fields.push(field);
      } else if (first & 0x20) this.resize(integer(block, r, 5));
      else fields.push(this.literal(block, r, 4)); // without indexing, or never indexed: the table is untouched
    }
    return fields;
  }

  private literal(block: Buffer, r: { at: number }, prefix: number): HeaderField {
    const index = integer(block, r, prefix);
    const name = index === 0 ? string(block, r) : this.entry(index).name;
    return { name, value: string(block, r) };
  }

  private entry(index: number): HeaderField {
    if (index >= 1 && index <= STATIC_TABLE.length) {
      const [name, value] = STATIC_TABLE[index - 1];
      return { name, value };
    }
    const entry = this.dynamic[index - STATIC_TABLE.length - 1];
    if (!entry) throw new FramingError('HPACK', index, `index ${index} is in neither table`);
    return entry;
  }

  private add(field: HeaderField): void {
    const size = sizeOf(field);
    this.dynamic.unshift(field);
    this.size += size;
    this.evict();
  }

  /** A dynamic table size update (§6.3): entries beyond the new limit are evicted, oldest first. */
  private resize(maxSize: number): void {
    this.maxSize = maxSize;
    this.evict();
  }

  private evict(): void {
    while (this.size > this.maxSize && this.dynamic.length > 0) this.size -= sizeOf(this.dynamic.pop()!);
  }
}

function sizeOf(field: HeaderField): number {
  return field.name.length + field.value.length + ENTRY_OVERHEAD;
}

/** An integer with an N-bit prefix (§5.1), read at `r.at`, which it moves past. */
function integer(block: Buffer, r: { at: number }, prefix: number): number {
  const max = (1 << prefix) - 1;
  let value = block[r.at++] & max;
  if (value < max) return value;
  for (let shift = 0; ; shift += 7) {
    if (r.at >= block.length) throw new FramingError('HPACK', r.at, 'an integer cut short');
    const byte = block[r.at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (value > MAX_INTEGER) throw new FramingError('HPACK', r.at, `an integer beyond ${MAX_INTEGER}`);
    if (!(byte & 0x80)) return value;
  }
}

/**
 * A string literal (§5.2): Huffman-coded or raw. Header octets are kept one char each (latin1), so an entry's size
 * counts octets as the encoder does.
 */
function string(block: Buffer, r: { at: number }): string {
  if (r.at >= block.length) throw new FramingError('HPACK', r.at, 'a string cut short');
  const huffman = (block[r.at] & 0x80) !== 0;
  const length = integer(block, r, 7);
  if (r.at + length > block.length) throw new FramingError('HPACK', r.at, `a string of ${length} octets cut short`);
  const raw = block.subarray(r.at, r.at + length);
  r.at += length;
  return (huffman ? huffmanDecode(raw, r.at) : raw).toString('latin1');
}
