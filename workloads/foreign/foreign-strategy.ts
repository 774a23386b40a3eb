/**
 * A LockStrategy whose lock lives in another process, in any language: each `connect` starts the user's command
 * (a fresh process each time — after an `info` the client reconnects, so the old process, which may still hold a
 * session or have a request in flight, is killed, as a crashed client's would be) and speaks the lock-client
 * protocol to it. Replies map onto the LockClient contract, so the client loop records them as for any strategy:
 * held → `ok`, not-acquired → `fail` (LockNotAcquired), error, a missing reply, a broken line → `info`.
 */
import { LockNotAcquired, type LockClient, type LockContext, type LockStrategy } from '../../locks/strategy.ts';
import { LockProcess, type LockPlacement, type LockProcessEvents } from './lock-process.ts';
import type { ForeignCommand } from './manifest.ts';
import { ACQUIRE_GRACE_MS, type ForeignReply } from './protocol.ts';

/**
 * The least time `connect`'s reply gets: the process has to start first. A JVM with Curator took 1.6–5 s from
 * spawn to connected on 2 busy cores (five starting at once), so a connect held to the acquire timeout (1.5 s in a
 * test, 1.9 s at --ttl=300) refused Curator outright.
 */
export const CONNECT_TIMEOUT_MIN_MS = 15_000;

/** How long any reply but acquire's may take: the acquire timeout (3 × TTL + 1 s), stated in `connect`. */
export function replyTimeoutMs(ctx: Pick<LockContext, 'acquireTimeoutMs'>): number {
  return ctx.acquireTimeoutMs;
}

export function foreignStrategy(
  name: string,
  cmd: ForeignCommand,
  events: LockProcessEvents = {},
  placement?: LockPlacement,
): LockStrategy {
  return {
    name,
    needs: [],
    token: cmd.expectToken ? 'monotonic' : 'none',
    async connect(ctx) {
      const proc = await LockProcess.start(cmd, events, placement);
      const replyMs = replyTimeoutMs(ctx);
      try {
        const r = await proc.request(
          {
            op: 'connect',
            endpoints: {
              redis: ctx.redis,
              etcd: ctx.etcd,
              ...(ctx.etcdAuth ? { etcdAuth: ctx.etcdAuth } : {}),
              zookeeper: ctx.zookeeper,
              ...(ctx.zookeeperAuth ? { zookeeperAuth: ctx.zookeeperAuth } : {}),
            },
            ...(ctx.keyPrefix ? { keyPrefix: ctx.keyPrefix } : {}),
            ttlMs: ctx.ttlMs,
            acquireTimeoutMs: ctx.acquireTimeoutMs,
            replyTimeoutMs: replyMs,
            client: ctx.client,
            seed: ctx.seed,
          },
          Math.max(replyMs, CONNECT_TIMEOUT_MIN_MS),
        );
        if (r.kind !== 'connected') throw new Error(`connect: ${describe(r)}`);
      } catch (err) {
        proc.kill();
        throw err;
      }
      return foreignClient(proc, cmd, ctx, replyMs);
    },
  };
}

function foreignClient(proc: LockProcess, cmd: ForeignCommand, ctx: LockContext, replyMs: number): LockClient {
  const client: LockClient = {
    async acquire(key) {
      const r = await proc.request({ op: 'acquire', key }, ctx.acquireTimeoutMs + ACQUIRE_GRACE_MS);
      if (r.kind === 'held') return { key, token: r.token, validityMs: r.validityMs, attempts: r.attempts ?? 1 };
      if (r.kind === 'not-acquired') throw new LockNotAcquired(r.reason, 1);
      throw new Error(`acquire: ${describe(r)}`);
    },
    async release(lease) {
      const r = await proc.request(
        { op: 'release', key: lease.key, ...(lease.token ? { token: lease.token } : {}) },
        replyMs,
      );
      if (r.kind === 'released') return r.held;
      throw new Error(`release: ${describe(r)}`);
    },
    async close() {
      await proc.close(replyMs);
    },
  };
  if (cmd.renews) {
    client.renew = async (lease) => {
      const r = await proc.request(
        { op: 'renew', key: lease.key, ...(lease.token ? { token: lease.token } : {}) },
        replyMs,
      );
      if (r.kind === 'held') return true;
      if (r.kind === 'lost') return false;
      throw new Error(`renew: ${describe(r)}`);
    };
  }
  return client;
}

function describe(r: ForeignReply): string {
  return r.kind === 'error' ? r.error : `unexpected reply ${r.kind}`;
}
