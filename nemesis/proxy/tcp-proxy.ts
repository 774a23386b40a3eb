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
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export type ProxyMode =
  | { readonly kind: 'forward' }
  | { readonly kind: 'partition' }
  | { readonly kind: 'hold-to-server' }
  | { readonly kind: 'latency'; readonly ms: number };

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
  /**
   * Bytes (both directions) read while a partition, a hold (client→server) or a latency was in effect, since
   * start: what the fault held back or delayed. Never decreases; a fault reads it before and after.
   */
  readonly heldBytes: number;
}

export interface TcpProxyOptions {
  readonly targetPort: number;
  /**
   * 127.0.0.1 unless the server is a target's (`--target`), whose file lists the hosts the run may reach
   * (`allowHosts`): any other host is refused, so the harness never sends traffic anywhere it was not told to.
   */
  readonly targetHost?: string;
  readonly allowHosts?: readonly string[];
}

const TARGET_HOST = '127.0.0.1';
// Beyond this many queued bytes in one direction we stop reading, so a fast sender under latency
// is throttled by TCP rather than by our memory.
const HIGH_WATER_BYTES = 1 << 20;

export class TcpProxy {
  private targetPort: number;
  private targetHost = TARGET_HOST;
  private currentMode: ProxyMode = { kind: 'forward' };
  private readonly links = new Set<Link>();
  private closed: Promise<void> | undefined;
  private stats = { connections: 0, bytesToServer: 0, bytesToClient: 0, upstreamFailures: 0, heldBytes: 0 };

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
    for (const link of this.links) queuedToServer += link.queuedToServer;
    return { ...this.stats, open: this.links.size, queuedToServer };
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
    this.currentMode = mode;
    for (const link of this.links) link.modeChanged();
  }

  private accept(client: net.Socket): void {
    if (this.closed) {
      client.destroy();
      return;
    }
    this.stats.connections += 1;
    const link = new Link(client, {
      mode: () => this.currentMode,
      targetPort: () => this.targetPort,
      targetHost: () => this.targetHost,
      delivered: (toServer, bytes) => {
        if (toServer) this.stats.bytesToServer += bytes;
        else this.stats.bytesToClient += bytes;
      },
      upstreamFailed: () => {
        this.stats.upstreamFailures += 1;
      },
      held: (bytes) => {
        this.stats.heldBytes += bytes;
      },
      gone: () => this.links.delete(link),
    });
    this.links.add(link);
    link.modeChanged();
  }
}

interface LinkContext {
  mode(): ProxyMode;
  targetPort(): number;
  targetHost(): string;
  delivered(toServer: boolean, bytes: number): void;
  upstreamFailed(): void;
  /** Bytes read while the mode held or delayed them. */
  held(bytes: number): void;
  gone(): void;
}

/** One client connection and, once it exists, its upstream connection. */
class Link {
  private upstream: net.Socket | undefined;
  private readonly toServer: Pipe;
  private toClient: Pipe | undefined;
  private dead = false;
  private cleanlyClosed = 0;

  constructor(
    private readonly client: net.Socket,
    private readonly ctx: LinkContext,
  ) {
    this.toServer = new Pipe(client, ctx.mode, (n) => ctx.delivered(true, n), true, ctx.held);
    client.on('error', () => this.destroy(false));
    client.on('close', (hadError) => this.socketClosed(hadError));
  }

  get queuedToServer(): number {
    return this.toServer.queued;
  }

  modeChanged(): void {
    if (this.dead) return;
    if (this.ctx.mode().kind !== 'partition' && this.upstream === undefined) this.connect();
    this.toServer.update();
    this.toClient?.update();
  }

  /** `reset` sends RST to the client so it notices at once; otherwise a plain close. */
  destroy(reset: boolean): void {
    if (this.dead) return;
    this.dead = true;
    this.toServer.stop();
    this.toClient?.stop();
    if (reset && !this.client.destroyed && !this.client.connecting) this.client.resetAndDestroy();
    else this.client.destroy();
    this.upstream?.destroy();
    this.ctx.gone();
  }

  /**
   * With allowHalfOpen on both sockets, a clean close of one means it has both sent and received
   * its EOF; the other may still have queued bytes to deliver (under latency), so it is left to
   * finish and close on its own. An error is a reset: everything goes.
   */
  private socketClosed(hadError: boolean): void {
    this.cleanlyClosed += 1;
    if (hadError || this.upstream === undefined || this.cleanlyClosed === 2) this.destroy(false);
  }

  private connect(): void {
    const upstream = net.connect({
      host: this.ctx.targetHost(),
      port: this.ctx.targetPort(),
      allowHalfOpen: true,
      noDelay: true,
    });
    this.upstream = upstream;
    let connected = false;
    upstream.pause();
    upstream.on('error', () => {
      if (!connected) this.ctx.upstreamFailed();
      this.destroy(false);
    });
    upstream.on('close', (hadError) => this.socketClosed(hadError));
    upstream.once('connect', () => {
      connected = true;
      if (this.dead) return;
      this.toClient = new Pipe(upstream, this.ctx.mode, (n) => this.ctx.delivered(false, n), false, this.ctx.held);
      this.toClient.attach(this.client);
      this.toServer.attach(upstream);
    });
  }
}

/** One direction of a link: reads `source`, holds chunks as the mode says, writes them to the sink. */
class Pipe {
  private readonly queue: Array<{ due: number; chunk: Buffer | null }> = []; // null = the source ended
  private queuedBytes = 0;
  private sink: net.Socket | undefined;
  private sinkFull = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly source: net.Socket,
    private readonly mode: () => ProxyMode,
    private readonly delivered: (bytes: number) => void,
    private readonly toServer: boolean,
    private readonly held: (bytes: number) => void,
  ) {
    source.on('data', (chunk: Buffer) => {
      const kind = this.mode().kind;
      if (kind === 'partition' || kind === 'latency' || (kind === 'hold-to-server' && this.toServer))
        this.held(chunk.length);
      this.queue.push({ due: this.dueTime(), chunk });
      this.queuedBytes += chunk.length;
      this.update();
    });
    source.on('end', () => {
      this.queue.push({ due: this.dueTime(), chunk: null });
      this.update();
    });
  }

  get queued(): number {
    return this.queuedBytes;
  }

  attach(sink: net.Socket): void {
    this.sink = sink;
    sink.on('drain', () => {
      this.sinkFull = false;
      this.update();
    });
    this.update();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  /** Re-evaluates reading and writing after anything changed. */
  update(): void {
    if (this.stopped) return;
    this.flush();
    // Under a partition both pipes, under a hold the client→server pipe, keep reading (into the queue, up to the
    // high-water mark) but never write, so what was held is counted and leaves the moment the fault heals.
    if (this.sinkFull || this.queuedBytes >= HIGH_WATER_BYTES) this.source.pause();
    else this.source.resume();
  }

  private dueTime(): number {
    const mode = this.mode();
    return performance.now() + (mode.kind === 'latency' ? mode.ms : 0);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const sink = this.sink;
    const kind = this.mode().kind;
    if (sink === undefined || kind === 'partition' || (kind === 'hold-to-server' && this.toServer)) return;
    while (this.queue.length > 0 && !this.sinkFull) {
      const head = this.queue[0];
      const wait = head.due - performance.now();
      if (wait > 0) {
        this.timer = setTimeout(() => this.update(), Math.ceil(wait));
        return;
      }
      this.queue.shift();
      if (head.chunk === null) {
        sink.end();
        continue;
      }
      this.queuedBytes -= head.chunk.length;
      this.delivered(head.chunk.length);
      if (!sink.write(head.chunk)) this.sinkFull = true;
    }
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
