/**
 * One client connection through the proxy and, once it exists, its upstream connection: two pipes, and the
 * connection's own state beside the proxy's mode — hung (accepted under accept-and-hang: never connected), black-
 * holed (its aimed reply was dropped and it was kept open), holding (hold-next-request caught its request: what it
 * sends from then on waits), and its request/reply pairing when the protocol is framed.
 */
import net from 'node:net';
import type { Frame } from './framing.ts';
import { type Action, Pipe, type PipeHooks } from './pipe.ts';
import { type Direction, type ProxyMode, flowOf } from './proxy-mode.ts';
import type { Aim, DroppedReply, Piece } from './reply-aim.ts';
import { RequestHold } from './request-hold.ts';

/** What the proxy counts; links add to it. */
export interface LinkStats {
  bytesToServer: number;
  bytesToClient: number;
  heldToServer: number;
  heldToClient: number;
  droppedToServer: number;
  droppedToClient: number;
  upstreamFailures: number;
  resets: number;
  hung: number;
}

export interface LinkContext {
  readonly stats: LinkStats;
  mode(): ProxyMode;
  targetPort(): number;
  targetHost(): string;
  /** Whether this request is the one the mode aims at (the proxy's one shot, taken by the first that is). */
  aimAt(request: Frame): boolean;
  /** The bytes the aimed reply must begin with to be dropped (the mode's `replyIs`), if any. */
  replyIs(): string | undefined;
  /** The aimed request's reply did not begin with them: it was delivered, and the proxy's shot is armed again. */
  aimPassed(): void;
  /** The aimed reply was dropped; says what becomes of the connection. */
  replyDropped(drop: DroppedReply): 'keep-open' | 'reset';
  /** Whether a hold-next-request waits for its request (the proxy's shot not yet taken). */
  holdArmed(): boolean;
  /** Whether this request is the one hold-next-request waits for (the proxy's one shot, taken by the first that is). */
  holdAt(request: Frame): boolean;
  gone(): void;
}

export class Link {
  private upstream: net.Socket | undefined;
  private readonly toServer: Pipe;
  private toClient: Pipe | undefined;
  private dead = false;
  private cleanlyClosed = 0;
  private readonly hung: boolean;
  private blackholed = false;
  private readonly aim: Aim | undefined;
  private readonly hold = new RequestHold();
  /** hold-next-request caught this connection's request: its requests wait until the mode changes. */
  private holding = false;
  private lastMode: ProxyMode | undefined;

  constructor(
    private readonly client: net.Socket,
    private readonly ctx: LinkContext,
    aim: Aim | undefined,
  ) {
    this.hung = ctx.mode().kind === 'accept-and-hang';
    if (this.hung) ctx.stats.hung += 1;
    this.aim = aim;
    this.toServer = new Pipe(client, this.hooks('to-server'));
    client.on('error', () => this.destroy(false));
    client.on('close', (hadError) => this.socketClosed(hadError));
  }

  get queuedToServer(): number {
    return this.toServer.queued;
  }

  get queuedToClient(): number {
    return this.toClient?.queued ?? 0;
  }

  modeChanged(): void {
    if (this.dead) return;
    const mode = this.ctx.mode();
    if (mode !== this.lastMode) {
      this.lastMode = mode;
      if (mode.kind !== 'drop-next-reply') {
        // A heal gives up an aim still waiting for its reply, and ends a black hole the way TCP ends a dead path:
        // the connection is reset, so the client reconnects rather than read replies out of step.
        this.toClient?.enqueue(this.aim?.cancel() ?? []);
        if (this.blackholed) return this.destroy(true);
      }
      if (mode.kind !== 'hold-next-request') {
        // The hold is over: what it kept goes to the server, in order, then what waited for a request to be whole.
        this.holding = false;
        this.toServer.enqueue([{ bytes: this.hold.release(), drop: false }]);
      }
      this.toServer.budget = this.budgetFor('to-server');
      if (this.toClient) this.toClient.budget = this.budgetFor('to-client');
    }
    if (!this.hung && mode.kind !== 'partition' && this.upstream === undefined) this.connect();
    this.toServer.update();
    this.toClient?.update();
  }

  /** `reset` sends RST to the client so it notices at once; otherwise a plain close. */
  destroy(reset: boolean): void {
    if (this.dead) return;
    this.dead = true;
    this.toServer.stop();
    this.toClient?.stop();
    if (reset && !this.client.destroyed && !this.client.connecting) {
      this.ctx.stats.resets += 1;
      this.client.resetAndDestroy();
    } else this.client.destroy();
    this.upstream?.destroy();
    this.ctx.gone();
  }

  private budgetFor(direction: Direction): number | undefined {
    const mode = this.ctx.mode();
    return mode.kind === 'reset-after' && mode.direction === direction ? mode.bytes : undefined;
  }

  private hooks(direction: Direction): PipeHooks {
    const stats = this.ctx.stats;
    const toServer = direction === 'to-server';
    return {
      direction,
      mode: this.ctx.mode,
      flow: () =>
        this.hung || this.blackholed ? 'drop' : toServer && this.holding ? 'hold' : flowOf(this.ctx.mode(), direction),
      intake: (chunk) => (toServer ? this.requestsRead(chunk) : this.repliesRead(chunk)),
      delivered: (n) => (toServer ? (stats.bytesToServer += n) : (stats.bytesToClient += n)),
      held: (n) => (toServer ? (stats.heldToServer += n) : (stats.heldToClient += n)),
      dropped: (n) => (toServer ? (stats.droppedToServer += n) : (stats.droppedToClient += n)),
      budgetSpent: () => this.destroy(true),
    };
  }

  private requestsRead(chunk: Buffer): Array<Piece | Action> {
    const frames: Frame[] = [];
    if (this.aim && !this.hung && !this.blackholed) {
      for (const { index, frame } of this.aim.requestBytes(chunk)) {
        frames.push(frame);
        if (this.ctx.aimAt(frame)) this.aim.aim(index, frame);
      }
    }
    // Without framing (none, or lost) no request can be named, so nothing waits to be whole.
    const armed = this.aim !== undefined && this.aim.lost === undefined && this.ctx.holdArmed();
    const split = this.hold.read(chunk, frames, armed, (frame) => this.ctx.holdAt(frame));
    const pieces: Array<Piece | Action> = [{ bytes: split.pass, drop: false }];
    // Once the requests before the caught one have been written, this connection holds what it sends.
    if (split.caught) pieces.push(() => (this.holding = true));
    if (split.hold.length) pieces.push({ bytes: split.hold, drop: false, held: true });
    return pieces;
  }

  private repliesRead(chunk: Buffer): Array<Piece | Action> {
    if (this.aim === undefined) return [{ bytes: chunk, drop: false }];
    const before = this.aim.dropped;
    const pieces: Array<Piece | Action> = this.aim.replyBytes(chunk, this.ctx.replyIs(), () => this.ctx.aimPassed());
    const drop = this.aim.dropped;
    if (before !== undefined || drop === undefined) return pieces;
    // Once the replies before the dropped one have been written: reset, or go dark both ways.
    const then = this.ctx.replyDropped(drop);
    pieces.push(then === 'reset' ? () => this.destroy(true) : () => (this.blackholed = true));
    return pieces;
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
      if (!connected) this.ctx.stats.upstreamFailures += 1;
      this.destroy(false);
    });
    upstream.on('close', (hadError) => this.socketClosed(hadError));
    upstream.once('connect', () => {
      connected = true;
      if (this.dead) return;
      this.toClient = new Pipe(upstream, this.hooks('to-client'));
      this.toClient.budget = this.budgetFor('to-client');
      this.toClient.attach(this.client);
      this.toServer.attach(upstream);
    });
  }
}
