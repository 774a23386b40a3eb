/**
 * The proxy's modes, and what each does to one direction of a connection. One mode holds at a time, for every
 * connection, until the next is set; `heal()` is `forward`.
 *
 * - `partition`: both directions held (read and queued, never written) — a real partition delays, TCP
 *   retransmits — and new connections wait unconnected; all of it is delivered at heal.
 * - `hold-to-server`: a request delayed in the network; replies flow.
 * - `one-way`: the mirror: requests reach the server, replies are held until heal (`replies: 'hold'`, then
 *   delivered in order) or dropped (`'drop'`: what the server said never arrives) — a server that acts on
 *   requests whose acknowledgements the client never sees (renewals that succeed while the client times out).
 * - `drop-next-reply`: the reply to the next request (the next whose name is `command`, or whose Postgres SQL
 *   contains it, if given) is dropped after the server acted on it; then that connection is reset, or kept open as
 *   a black hole until heal (then reset, as TCP eventually gives up a dead path). The black hole drops the later
 *   replies and requests on that connection too: a client that read a later reply as the lost one's answer would be
 *   out of step with its server — a failure of the harness, not of the lock. A heal before the aimed reply came
 *   cancels the shot. With `replyIs`, only a reply that begins with those bytes is dropped (`+OK`: a `SET NX` that
 *   took the key); the reply to an aimed request that does not is delivered and the shot stays armed for the next —
 *   an acquire that found the key held did nothing on the server, and dropping its reply would be no fault at all.
 *   Needs the protocol's framing (see protocol-framings.ts).
 * - `hold-next-request`: the next request (named `command`, if given: RESP `SET`, ZooKeeper `create`) is held in flight before
 *   the server sees any of it, and so is everything after it on that connection, until the mode changes (heal: all
 *   of it delivered, in order). Requests before it, and the proxy's other connections, flow. One shot. What a slow
 *   path does to one request — it left the client and arrives late — aimed at the request a lock's correctness
 *   turns on (the SET of a check-then-set acquire) rather than at whatever bytes happen to be in flight. Needs the
 *   protocol's framing.
 * - `reset-after`: every connection is reset (RST: the client sees ECONNRESET) once `bytes` more have passed in
 *   `direction`; `resetConnections()` is the same, now. An RST that reaches the client while bytes before it are
 *   still unread in its receive queue is reported by Node as a plain EOF ('end', then 'close' without error) —
 *   measured on Linux with a loopback server writing 5 bytes and resetting on the next tick; resetting 50 ms later
 *   gave ECONNRESET. Either way the connection is gone; only the error's name differs.
 * - `slice` / `bandwidth`: delivery in pieces of `bytes` with `delayMs` between, or at `bytesPerSecond`.
 * - `accept-and-hang`: new connections are accepted and never connected to the server; what they send goes
 *   nowhere (dropped, counted). They stay hung after heal, until the client gives up or `resetConnections()`.
 */
export type Direction = 'to-server' | 'to-client';
export type Directions = Direction | 'both';

export type ProxyMode =
  | { readonly kind: 'forward' }
  | { readonly kind: 'partition' }
  | { readonly kind: 'hold-to-server' }
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'one-way'; readonly replies: 'hold' | 'drop' }
  | {
      readonly kind: 'drop-next-reply';
      readonly command?: string;
      /** Requests never aimed at, by name (a client's connection chatter: AUTH, INFO, PING …); they pass. */
      readonly except?: readonly string[];
      /** Only a reply that begins with these bytes (RESP `+OK`: the server did it); another is delivered, the aim kept. */
      readonly replyIs?: string;
      readonly then: 'keep-open' | 'reset';
    }
  | { readonly kind: 'hold-next-request'; readonly command?: string }
  | { readonly kind: 'reset-after'; readonly bytes: number; readonly direction: Direction }
  | { readonly kind: 'slice'; readonly bytes: number; readonly delayMs: number; readonly direction: Directions }
  | { readonly kind: 'bandwidth'; readonly bytesPerSecond: number; readonly direction: Directions }
  | { readonly kind: 'accept-and-hang' };

/** What a direction does with the bytes it reads: deliver them, keep them for later, or throw them away. */
export type Flow = 'flow' | 'hold' | 'drop';

export function flowOf(mode: ProxyMode, direction: Direction): Flow {
  switch (mode.kind) {
    case 'partition':
      return 'hold';
    case 'hold-to-server':
      return direction === 'to-server' ? 'hold' : 'flow';
    case 'one-way':
      return direction === 'to-client' ? mode.replies : 'flow';
    default:
      return 'flow';
  }
}

/** How delivery is spread out: at most `bytes` per write, then wait `delayMs(bytes written)`. */
export interface Pacing {
  readonly bytes: number;
  delayMs(written: number): number;
}

/** A bandwidth's writes: about 10 ms' worth each, so the rate is smooth without a timer per byte. */
const BANDWIDTH_WRITES_PER_SECOND = 100;

export function pacingOf(mode: ProxyMode, direction: Direction): Pacing | undefined {
  if (mode.kind !== 'slice' && mode.kind !== 'bandwidth') return undefined;
  if (mode.direction !== 'both' && mode.direction !== direction) return undefined;
  if (mode.kind === 'slice') return { bytes: mode.bytes, delayMs: () => mode.delayMs };
  const rate = mode.bytesPerSecond;
  return { bytes: Math.max(1, Math.ceil(rate / BANDWIDTH_WRITES_PER_SECOND)), delayMs: (n) => (n * 1000) / rate };
}

/** Whether bytes read in this mode are held back or delayed (counted in `heldBytes`). */
export function delays(mode: ProxyMode, direction: Direction): boolean {
  return flowOf(mode, direction) === 'hold' || mode.kind === 'latency' || pacingOf(mode, direction) !== undefined;
}

/** The mode's parameters checked once, when it is set: a bad one is refused, naming it. */
export function assertValid(mode: ProxyMode): void {
  const positive = (what: string, n: number, min: number) => {
    const whole = what !== 'bytes' || Number.isInteger(n);
    if (!Number.isFinite(n) || n < min || !whole)
      throw new RangeError(
        `proxy ${mode.kind} ${what} must be ${what === 'bytes' ? 'a whole number ' : ''}≥ ${min}, got ${n}`,
      );
  };
  if (mode.kind === 'latency') positive('ms', mode.ms, 0);
  if (mode.kind === 'reset-after') positive('bytes', mode.bytes, 1);
  if (mode.kind === 'slice') {
    positive('bytes', mode.bytes, 1);
    positive('delayMs', mode.delayMs, 0);
  }
  if (mode.kind === 'bandwidth') positive('bytesPerSecond', mode.bytesPerSecond, 1);
}
