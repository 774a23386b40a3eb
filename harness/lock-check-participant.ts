import {
  isLockNotAcquired,
  type Lease,
  type LockClient,
  type LockContext,
  type LockStrategy,
} from '../workloads/strategy.ts';
import type { ForeignReply, ForeignRequest } from '../workloads/foreign/protocol.ts';

/**
 * One of lock-check's processes (A, B, C) as its steps use it: requests of the lock-client protocol and their replies.
 * A foreign lock is a real process speaking the protocol (workloads/foreign/lock-process.ts); a built-in strategy of
 * this language (the npm rows) is a `LockClient` in lock-check's own process, answered in the protocol's terms here —
 * so both go through the same contract.
 */
export interface CheckParticipant {
  request(req: Exclude<ForeignRequest, { op: 'connect' }>, timeoutMs: number): Promise<ForeignReply>;
  /** Still answering: not closed, not killed. */
  readonly usable: boolean;
  /** Settles once it is gone (closed or killed). */
  readonly exited: Promise<void>;
  kill(): void;
}

class ReplyTimeout extends Error {}

/** A LockClient in this process, as a participant: each call's outcome as the reply a lock process would give. */
export class NativeParticipant implements CheckParticipant {
  private readonly leases = new Map<string, Lease>();
  private gone = false;
  private markGone!: () => void;
  readonly exited = new Promise<void>((resolve) => (this.markGone = resolve));

  private constructor(
    private readonly client: LockClient,
    private readonly log: (dir: '→' | '←', line: string) => void,
  ) {}

  /** `strategy.connect(ctx)`, bounded by `timeoutMs`: the participant, or why it could not connect (a reply). */
  static async connect(
    strategy: Pick<LockStrategy, 'connect'>,
    ctx: LockContext,
    timeoutMs: number,
    log: (dir: '→' | '←', line: string) => void,
  ): Promise<NativeParticipant | ForeignReply> {
    log('→', `connect (client ${ctx.client}, ttl ${ctx.ttlMs} ms)`);
    try {
      const client = await within(strategy.connect(ctx), timeoutMs);
      log('←', 'connected');
      return new NativeParticipant(client, log);
    } catch (err) {
      log('←', `error: ${(err as Error).message}`);
      return { kind: 'error', error: (err as Error).message };
    }
  }

  get usable(): boolean {
    return !this.gone;
  }

  async request(req: Exclude<ForeignRequest, { op: 'connect' }>, timeoutMs: number): Promise<ForeignReply> {
    this.log('→', JSON.stringify(req));
    let reply: ForeignReply;
    try {
      reply = await within(this.answer(req), timeoutMs);
    } catch (err) {
      if (err instanceof ReplyTimeout) {
        this.log('←', `no reply in ${timeoutMs} ms`);
        throw new Error(`no reply to ${req.op} in ${timeoutMs} ms`);
      }
      reply = isLockNotAcquired(err)
        ? { kind: 'not-acquired', reason: (err as Error).message }
        : { kind: 'error', error: (err as Error).message };
    }
    this.log('←', JSON.stringify(reply));
    return reply;
  }

  private async answer(req: Exclude<ForeignRequest, { op: 'connect' }>): Promise<ForeignReply> {
    if (req.op === 'acquire') {
      const lease = await this.client.acquire(req.key);
      this.leases.set(req.key, lease);
      return {
        kind: 'held',
        ...(lease.token !== undefined ? { token: lease.token } : {}),
        ...(lease.validityMs !== undefined ? { validityMs: lease.validityMs } : {}),
        attempts: lease.attempts,
      };
    }
    if (req.op === 'close') {
      await this.client.close();
      this.gone = true;
      this.markGone();
      return { kind: 'closed' };
    }
    const lease = this.leases.get(req.key);
    if (!lease) return { kind: 'error', error: `no lease of ${req.key} held by this client` };
    if (req.op === 'release') {
      this.leases.delete(req.key);
      return { kind: 'released', held: await this.client.release(lease) };
    }
    if (!this.client.renew) return { kind: 'error', error: 'this lock has no renew' };
    return (await this.client.renew(lease)) ? { kind: 'held' } : { kind: 'lost' };
  }

  kill(): void {
    if (this.gone) return;
    this.gone = true;
    void this.client.close().catch(() => {});
    this.markGone();
  }
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new ReplyTimeout()), ms))),
  ]).finally(() => clearTimeout(timer));
}
