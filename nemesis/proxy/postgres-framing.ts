/**
 * Postgres frontend/backend protocol (v3) framing. A connection opens with untyped packets (int32 length, int32
 * code): SSLRequest or GSSENCRequest, each answered by one byte, then the StartupMessage. After that every message
 * is a type byte and an int32 length that counts itself but not the type.
 *
 * A request is the run of client messages up to and including one that the server answers with ReadyForQuery
 * ('Z'): Query 'Q', Sync 'S' (the extended protocol's Parse/Bind/Execute/Sync is one request), FunctionCall 'F'.
 * Messages with no 'Z' of their own — the password/SASL answers of the startup exchange, CopyData/CopyDone after
 * a COPY's Query, Flush, Terminate — join the next request. The StartupMessage is a request: its reply is the
 * whole authentication exchange up to the first 'Z'. A reply is the run of server messages up to and including
 * 'Z', so asynchronous NotificationResponse / ParameterStatus / NoticeResponse messages between two replies belong
 * to the next one (dropping that reply drops them too).
 *
 * Not handled: TLS (the proxy sees ciphertext after the server's 'S' answer: framing stops there), and a Flush
 * without Sync whose partial replies the client reads before any 'Z' (pipeline mode; pairing still holds, but the
 * whole reply is held back until its 'Z' while a drop is aimed at it).
 */
import { type Frame, type Framer, type Framing, FramingError, Unframed } from './framing.ts';

const PROTOCOL = 'Postgres';
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Ends a request: the server answers each of these with ReadyForQuery. */
const ANSWERED = new Map([
  ['Q', 'Query'],
  ['S', 'Sync'],
  ['F', 'FunctionCall'],
]);
const MESSAGE_NAMES: Record<string, string> = { P: 'Parse', B: 'Bind', E: 'Execute', D: 'Describe', C: 'Close' };

/** Encryption requests sent and not yet answered: the reply framer reads each answer as one byte. */
interface Shared {
  encryptionAnswersDue: number;
}

export const postgresFraming: Framing = {
  protocol: PROTOCOL,
  open: () => {
    const shared: Shared = { encryptionAnswersDue: 0 };
    return { requests: new PostgresRequests(shared), replies: new PostgresReplies(shared) };
  },
};

class PostgresRequests implements Framer {
  private readonly buffer = new Unframed();
  private started = false;
  /** Where the current request's messages end so far (relative to buffer.bytes), and what they are. */
  private scanned = 0;
  private names: string[] = [];
  private sql: string | undefined;

  constructor(private readonly shared: Shared) {}

  feed(bytes: Buffer): Frame[] {
    this.buffer.append(bytes);
    const frames: Frame[] = [];
    while (this.started ? this.nextMessage(frames) : this.startupPacket(frames));
    return frames;
  }

  private startupPacket(frames: Frame[]): boolean {
    const b = this.buffer.bytes;
    if (b.length < 8) return false;
    const length = b.readInt32BE(0);
    if (length < 8) throw new FramingError(PROTOCOL, this.buffer.offset, `startup packet length ${length}`);
    if (b.length < length) return false;
    const code = b.readInt32BE(4);
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      this.shared.encryptionAnswersDue += 1;
      frames.push(this.buffer.consume(length, { name: code === SSL_REQUEST ? 'SSLRequest' : 'GSSENCRequest' }));
      return true;
    }
    this.started = true;
    frames.push(this.buffer.consume(length, { name: code === CANCEL_REQUEST ? 'CancelRequest' : 'StartupMessage' }));
    return true;
  }

  private nextMessage(frames: Frame[]): boolean {
    const b = this.buffer.bytes;
    const at = this.scanned;
    if (b.length < at + 5) return false;
    const type = String.fromCharCode(b[at]);
    const length = b.readInt32BE(at + 1);
    if (length < 4) throw new FramingError(PROTOCOL, this.buffer.offset + at, `message '${type}' length ${length}`);
    if (b.length < at + 1 + length) return false;
    this.scanned = at + 1 + length;
    const answered = ANSWERED.get(type);
    this.names.push(answered ?? MESSAGE_NAMES[type] ?? type);
    if (type === 'Q') this.sql ??= cString(b, at + 5);
    if (type === 'P') this.sql ??= cString(b, at + 5 + cString(b, at + 5).length + 1); // after the statement name
    if (answered === undefined) return true;
    frames.push(
      this.buffer.consume(this.scanned, {
        name: this.names.join('/'),
        ...(this.sql !== undefined && { detail: this.sql }),
      }),
    );
    this.scanned = 0;
    this.names = [];
    this.sql = undefined;
    return true;
  }
}

class PostgresReplies implements Framer {
  private readonly buffer = new Unframed();
  private scanned = 0;

  constructor(private readonly shared: Shared) {}

  feed(bytes: Buffer): Frame[] {
    this.buffer.append(bytes);
    const frames: Frame[] = [];
    for (;;) {
      const b = this.buffer.bytes;
      if (this.shared.encryptionAnswersDue > 0 && this.scanned === 0) {
        if (b.length < 1) return frames;
        if (b[0] !== 0x4e /* 'N' */)
          throw new FramingError(
            PROTOCOL,
            this.buffer.offset,
            'the server accepted encryption: the rest is ciphertext',
          );
        this.shared.encryptionAnswersDue -= 1;
        frames.push(this.buffer.consume(1, { name: 'EncryptionRefused' }));
        continue;
      }
      const at = this.scanned;
      if (b.length < at + 5) return frames;
      const length = b.readInt32BE(at + 1);
      if (length < 4) throw new FramingError(PROTOCOL, this.buffer.offset + at, `message length ${length}`);
      if (b.length < at + 1 + length) return frames;
      this.scanned = at + 1 + length;
      if (b[at] !== 0x5a /* 'Z' */) continue;
      frames.push(this.buffer.consume(this.scanned, { name: 'ReadyForQuery' }));
      this.scanned = 0;
    }
  }
}

/** The NUL-terminated string at `at`. */
function cString(b: Buffer, at: number): string {
  const end = b.indexOf(0, at);
  return b.subarray(at, end < 0 ? b.length : end).toString('utf8');
}
