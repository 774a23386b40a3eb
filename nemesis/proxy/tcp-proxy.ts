/**
 * A TCP proxy the harness puts between every client and the server it talks to, because this
 * kernel has no `tc netem`: partitions and latency are made here instead of in the network.
 *
 * Partition semantics: a partition stops forwarding in both directions, it does not drop bytes.
 * Over a real partition TCP keeps retransmitting, so whatever a peer sent arrives once the network
 * heals (unless the connection timed out first: we never time out, Linux takes ~15 min to). Here we
 * stop writing to both sockets and keep reading into our queue up to a high-water mark (then stop
 * reading, so bytes wait in the kernel buffers and the senders' windows close as they would): what
 * was read is counted (`heldBytes`), so a partition can show it held real traffic. Connections accepted during a partition are held without
 * an upstream connection until heal, when they connect to whatever the target is then.
 *
 * A hold (`holdToServer`) is a one-way partition that keeps reading: whatever the client sends is queued, in
 * order, and nothing of it reaches the server until heal; replies already on their way still reach the client.
 * That is a request delayed in the network — it left the client, it arrives late — and the queue's size says
 * how much was held.
 *
 * Latency is one-way: each chunk is held `ms` in each direction, so a request/response costs 2 × ms.
 * A chunk's due time is fixed when it is read, and chunks leave in the order they came, so a later
 * chunk never overtakes an earlier one even when the latency is lowered or healed meanwhile.
 *
 * The other modes (one-way, drop-next-reply, hold-next-request, reset-after, slice, bandwidth, accept-and-hang) are
 * described in proxy-mode.ts; a connection is a Link (link.ts) of two Pipes (pipe.ts).
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Frame } from './framing.ts';
import { Link, type LinkStats } from './link.ts';
import { type ProxyProtocol, framingOf, openAim, unframedError } from './protocol-framings.ts';
import { type Direction, type Directions, type ProxyMode, assertValid } from './proxy-mode.ts';
import type { DroppedReply } from './reply-aim.ts';

export type { ProxyMode } from './proxy-mode.ts';

export interface ProxyCounters {
  /** Connections accepted since start. */
  readonly connections: number;
  /** Connections currently open. */
  readonly open: number;
  /** Bytes delivered to the server / to clients (held bytes are not counted until delivered). */
  readonly bytesToServer: number;
  readonly bytesToClient: number;
  /** Upstream connects that failed; the client's socket was closed each time, as a refusal would. */
  readonly upstreamFailures: number;
  /** Bytes read from clients and not yet delivered to the server (a hold's catch, a latency's backlog). */
  readonly queuedToServer: number;
  /** Bytes read from servers and not yet delivered to clients (a one-way hold's catch). */
  readonly queuedToClient: number;
  /**
   * Bytes (both directions) read while a partition, a hold, a latency, a slice or a bandwidth was in effect,
   * since start: what the fault held back or delayed. Never decreases; a fault reads it before and after.
   * heldToServer + heldToClient.
   */
  readonly heldBytes: number;
  readonly heldToServer: number;
  readonly heldToClient: number;
  /** Bytes read and never delivered: a one-way drop's, a dropped reply's and what followed it, a hung connection's. */
  readonly droppedToServer: number;
  readonly droppedToClient: number;
  /** Connections reset (RST to the client): resetConnections(), reset-after, drop-next-reply's reset, a black hole's heal. */
  readonly resets: number;
  /** Connections accepted under accept-and-hang, since start. */
  readonly hung: number;
}

/** A drop-next-reply's hit: which connection, which request, which reply (byte offsets in each direction's stream). */
export interface ProxyDroppedReply extends DroppedReply {
  /** The connection's number: 1 for the proxy's first accepted connection. */
  readonly connection: number;
  /** performance.now() when the reply was dropped. */
  readonly atMs: number;
}

/** A hold-next-request's catch: which connection, which request, when. */
export interface ProxyHeldRequest {
  /** The connection's number: 1 for the proxy's first accepted connection. */
  readonly connection: number;
  readonly request: Frame;
  /** performance.now() when the request was caught. */
  readonly atMs: number;
}

export interface TcpProxyOptions {
  readonly targetPort: number;
  /**
   * 127.0.0.1 unless the server is a target's (`--target`), whose file lists the hosts the run may reach
   * (`allowHosts`): any other host is refused, so the harness never sends traffic anywhere it was not told to.
   */
  readonly targetHost?: string;
  readonly allowHosts?: readonly string[];
  /** The protocol the clients speak; with a framer for it (protocol-framings.ts), the per-request modes can aim. */
  readonly protocol?: ProxyProtocol;
}

const TARGET_HOST = '127.0.0.1';

export class TcpProxy {
  private targetPort: number;
  private targetHost = TARGET_HOST;
  private currentMode: ProxyMode = { kind: 'forward' };
  private readonly links = new Set<Link>();
  private closed: Promise<void> | undefined;
  private protocol: ProxyProtocol | undefined;
  private connections = 0;
  private readonly stats: LinkStats = {
    bytesToServer: 0,
    bytesToClient: 0,
    heldToServer: 0,
    heldToClient: 0,
    droppedToServer: 0,
    droppedToClient: 0,
    upstreamFailures: 0,
    resets: 0,
    hung: 0,
  };
  /** drop-next-reply's or hold-next-request's one shot: armed when the mode is set, spent by the first request aimed at. */
  private shotArmed = false;
  private readonly drops: ProxyDroppedReply[] = [];
  private readonly holds: ProxyHeldRequest[] = [];

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    targetPort: number,
  ) {
    this.targetPort = targetPort;
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Listens on 127.0.0.1 on a free port and starts in `forward` mode. */
  static async start(options: TcpProxyOptions): Promise<TcpProxy> {
    assertAllowed(options.targetHost ?? TARGET_HOST, options.allowHosts ?? []);
    assertPort(options.targetPort);
    // noDelay on both legs: with Nagle on, a client that writes a request in two pieces (gRPC's HEADERS then DATA
    // frames) has its second piece held until the first is ACKed, and the server delays that ACK by up to 40 ms.
    // Measured with `npm run bench -- overhead --locks=etcd`: etcd acquire p50 45.6 ms with Nagle, 5.5 ms without.
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, TARGET_HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as net.AddressInfo;
    const proxy = new TcpProxy(server, port, options.targetPort);
    proxy.targetHost = options.targetHost ?? TARGET_HOST;
    proxy.protocol = options.protocol;
    return proxy;
  }

  get mode(): ProxyMode {
    return this.currentMode;
  }

  get target(): { host: string; port: number } {
    return { host: this.targetHost, port: this.targetPort };
  }

  counters(): ProxyCounters {
    let queuedToServer = 0;
    let queuedToClient = 0;
    for (const link of this.links) {
      queuedToServer += link.queuedToServer;
      queuedToClient += link.queuedToClient;
    }
    const heldBytes = this.stats.heldToServer + this.stats.heldToClient;
    return {
      ...this.stats,
      connections: this.connections,
      open: this.links.size,
      queuedToServer,
      queuedToClient,
      heldBytes,
    };
  }

  /** Every reply drop-next-reply dropped, in order: what a fault reads to know it hit. */
  droppedReplies(): readonly ProxyDroppedReply[] {
    return [...this.drops];
  }

  /** Every request hold-next-request caught, in order: what a fault reads to know it held one. */
  heldRequests(): readonly ProxyHeldRequest[] {
    return [...this.holds];
  }

  /** Forward normally; bytes held by a partition go out at once, in order. */
  heal(): void {
    this.setMode({ kind: 'forward' });
  }

  /** Stop forwarding both ways on every connection, open or new, until heal() or latency(). */
  partition(): void {
    this.setMode({ kind: 'partition' });
  }

  /** Queue everything clients send (open connections and new ones) until heal(); the server's replies flow. */
  holdToServer(): void {
    this.setMode({ kind: 'hold-to-server' });
  }

  /** Hold every chunk `ms` in each direction from now on. */
  latency(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`proxy latency must be ≥ 0 ms, got ${ms}`);
    this.setMode(ms === 0 ? { kind: 'forward' } : { kind: 'latency', ms });
  }

  /** Requests flow; replies are held until heal (then delivered in order) or dropped. */
  oneWay(replies: 'hold' | 'drop' = 'hold'): void {
    this.setMode({ kind: 'one-way', replies });
  }

  /**
   * Drop the reply to the next request — the next whose name is `command` (RESP `SET`, ZooKeeper `create`) or whose
   * Postgres statement contains it, if given — once the server has sent it; then reset that connection or keep it
   * open as a black hole until heal. One shot: later requests pass until this is called again. Refused when the
   * proxy has no framing for its protocol.
   */
  dropNextReply(options: {
    command?: string;
    except?: readonly string[];
    replyIs?: string;
    then: 'keep-open' | 'reset';
  }): void {
    if (framingOf(this.protocol) === undefined) throw unframedError(this.protocol, 'drop-next-reply');
    this.setMode({ kind: 'drop-next-reply', ...options });
    this.shotArmed = true;
  }

  /**
   * Hold the next request (the next named `command`, if given: RESP `SET`, ZooKeeper `create`) in flight, before the
   * server sees any of it, with everything its connection sends after it, until the mode changes (heal delivers it
   * all, in order).
   * Requests before it and other connections flow. One shot. Refused when the proxy has no framing for its protocol.
   */
  holdNextRequest(command?: string): void {
    if (framingOf(this.protocol) === undefined) throw unframedError(this.protocol, 'hold-next-request');
    this.setMode({ kind: 'hold-next-request', command });
    this.shotArmed = true;
  }

  /** Reset each connection (open now, or opened later) once `bytes` more have passed in `direction`. */
  resetAfter(bytes: number, direction: Direction): void {
    this.setMode({ kind: 'reset-after', bytes, direction });
  }

  /** Deliver in pieces of at most `bytes`, `delayMs` apart. */
  slice(bytes: number, delayMs: number, direction: Directions = 'both'): void {
    this.setMode({ kind: 'slice', bytes, delayMs, direction });
  }

  /** Deliver at most `bytesPerSecond` per connection and direction. */
  bandwidth(bytesPerSecond: number, direction: Directions = 'both'): void {
    this.setMode({ kind: 'bandwidth', bytesPerSecond, direction });
  }

  /** Accept new connections and never connect them to the server; open ones are untouched. */
  acceptAndHang(): void {
    this.setMode({ kind: 'accept-and-hang' });
  }

  /**
   * Send connections made from now on (and those still held by a partition) to another port on
   * 127.0.0.1; existing ones keep their server until resetConnections().
   */
  setTarget(port: number): void {
    assertPort(port);
    this.targetPort = port;
  }

  /** Reset every open connection (RST to the client), as a failover does; clients must reconnect. */
  resetConnections(): void {
    for (const link of [...this.links]) link.destroy(true);
  }

  /** Stops listening and destroys every connection. Safe to call twice. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const link of [...this.links]) link.destroy(false);
    });
    return this.closed;
  }

  private setMode(mode: ProxyMode): void {
    if (this.closed) throw new Error('proxy is closed');
    assertValid(mode);
    this.currentMode = mode;
    this.shotArmed = false;
    for (const link of this.links) link.modeChanged();
  }

  private accept(client: net.Socket): void {
    if (this.closed) {
      client.destroy();
      return;
    }
    const id = ++this.connections;
    const link: Link = new Link(
      client,
      {
        stats: this.stats,
        mode: () => this.currentMode,
        targetPort: () => this.targetPort,
        targetHost: () => this.targetHost,
        aimAt: (request) => this.aimAt(request),
        replyIs: () => (this.currentMode.kind === 'drop-next-reply' ? this.currentMode.replyIs : undefined),
        aimPassed: () => {
          if (this.currentMode.kind === 'drop-next-reply') this.shotArmed = true;
        },
        replyDropped: (drop) => {
          this.drops.push({ connection: id, ...drop, atMs: performance.now() });
          return this.currentMode.kind === 'drop-next-reply' ? this.currentMode.then : 'reset';
        },
        holdArmed: () => this.currentMode.kind === 'hold-next-request' && this.shotArmed,
        holdAt: (request) => {
          if (!this.holdAt(request)) return false;
          this.holds.push({ connection: id, request, atMs: performance.now() });
          return true;
        },
        gone: () => this.links.delete(link),
      },
      openAim(this.protocol),
    );
    this.links.add(link);
    link.modeChanged();
  }

  private holdAt(request: Frame): boolean {
    const mode = this.currentMode;
    if (mode.kind !== 'hold-next-request' || !this.shotArmed) return false;
    if (mode.command !== undefined && request.name?.toUpperCase() !== mode.command.toUpperCase()) return false;
    this.shotArmed = false;
    return true;
  }

  private aimAt(request: Frame): boolean {
    const mode = this.currentMode;
    if (mode.kind !== 'drop-next-reply' || !this.shotArmed) return false;
    const command = mode.command?.toUpperCase();
    const named = request.name?.toUpperCase() === command || request.detail?.toUpperCase().includes(command ?? '');
    if (command !== undefined && !named) return false;
    if (mode.except?.some((e) => e.toUpperCase() === request.name?.toUpperCase())) return false;
    this.shotArmed = false;
    return true;
  }
}

function assertAllowed(host: string, allowHosts: readonly string[]): void {
  if (host !== TARGET_HOST && !allowHosts.includes(host)) {
    throw new Error(
      `proxy target must be ${TARGET_HOST} or a host the target file allows; refusing "${host}" (the harness never sends traffic anywhere it was not told to)`,
    );
  }
}

function assertPort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new RangeError(`proxy target port must be 1–65535, got ${port}`);
}
