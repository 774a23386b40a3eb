import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import type { Etcd3, IOptions } from 'etcd3';
import type { EtcdServer, RedisEndpoint, RedisServer } from '../cluster/node.ts';
import { RemoteNode, withTimeout, type NodeActions } from './remote-node.ts';
import type { Login } from './target-credentials.ts';
import type { TargetEndpoint, TargetTls } from './target-spec.ts';

const etcd3 = (() => {
  let mod: typeof import('etcd3') | null = null;
  return () => (mod ??= createRequire(import.meta.url)('etcd3') as typeof import('etcd3'));
})();

/** A target's Redis server. */
export class RemoteRedis extends RemoteNode implements RedisServer {
  constructor(
    target: TargetEndpoint,
    actions: NodeActions,
    keyPrefix: string,
    private readonly login: Login | null,
    private readonly tls: TargetTls | null,
  ) {
    super('redis', target, actions, keyPrefix);
  }

  /**
   * Its own address (not a proxy) with the target's user, password and TLS — and no ready check: ioredis's asks
   * INFO, which the ACL docs/targets.md recommends refuses (`-@dangerous`), and it then warned "Skipping the ready
   * check…" on every connection: 3 times per `target check`, 9 per run, 7 in each client's log (audit R18). Whether
   * the server answers is fencepost's own check. Clients get it with the rest (a lock spreads `ctx.redis[i]`).
   */
  endpoint(): RedisEndpoint {
    return {
      host: this.host,
      port: this.port,
      enableReadyCheck: false,
      ...(this.login?.username ? { username: this.login.username } : {}),
      ...(this.login?.password ? { password: this.login.password } : {}),
      ...(this.tls ? { tls: tlsOptions(this.tls) } : {}),
    };
  }

  /** A short-lived client that fails fast: no retries, no offline queue. */
  async withClient<T>(fn: (r: Redis) => Promise<T>, timeoutMs = 2000): Promise<T> {
    const r = new Redis({
      ...this.endpoint(),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    r.on('error', () => {});
    try {
      await r.connect();
      return await fn(r);
    } finally {
      r.disconnect();
    }
  }

  protected ask(timeoutMs: number): Promise<unknown> {
    return this.withClient((r) => r.ping(), timeoutMs);
  }

  /** From HELLO, which every user may send (INFO is @dangerous, often denied to a fenced user). */
  async version(): Promise<string> {
    return this.withClient(async (r) => versionOfHello((await r.call('HELLO', '2')) as unknown[]));
  }
}

/**
 * The version in a HELLO reply (RESP2: a flat key, value list), named when the server is not Redis: Valkey answers
 * `server valkey`, `version 8.0.1`, and a target's record must not file that as Redis 8.0.1.
 */
export function versionOfHello(hello: readonly unknown[]): string {
  const field = (k: string) => (hello.indexOf(k) >= 0 ? String(hello[hello.indexOf(k) + 1]) : undefined);
  const [server, version] = [field('server'), field('version') ?? 'unknown'];
  return server && server !== 'redis' ? `${server} ${version}` : version;
}

/** ioredis's `tls` option for a target's server. */
export function tlsOptions(tls: TargetTls): { ca?: string; servername?: string } {
  return { ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.servername ? { servername: tls.servername } : {}) };
}

/** A member of a target's etcd cluster. */
export class RemoteEtcd extends RemoteNode implements EtcdServer {
  readonly endpoint: string;

  constructor(
    target: TargetEndpoint,
    actions: NodeActions,
    keyPrefix: string,
    private readonly login: Login | null,
    private readonly tls: TargetTls | null,
  ) {
    super('etcd', target, actions, keyPrefix);
    this.endpoint = `${tls ? 'https' : 'http'}://${target.host}:${target.port}`;
  }

  get userAuth(): { username: string; password: string } | undefined {
    return this.login?.username && this.login.password
      ? { username: this.login.username, password: this.login.password }
      : undefined;
  }

  /** A client of this member as the target's user (the run has no other). */
  client(timeoutMs = 2000): Etcd3 {
    return new (etcd3().Etcd3)({
      hosts: [this.endpoint],
      dialTimeout: timeoutMs,
      ...etcdOptions(this.userAuth, this.tls),
    });
  }

  async status(): Promise<{ memberId: string; leader: string; version: string }> {
    const c = this.client();
    try {
      const s = await withTimeout(c.maintenance.status(), 2000);
      return { memberId: String(s.header.member_id), leader: String(s.leader), version: s.version };
    } finally {
      c.close();
    }
  }

  /**
   * A linearizable read under the run's prefix, on this member alone: what the target's user may always do (a
   * member's status may be for admins only), and it needs the member to serve and its cluster a quorum.
   */
  protected async ask(timeoutMs: number): Promise<unknown> {
    const c = this.client(timeoutMs);
    try {
      return await withTimeout(c.get(this.remote.keyPrefix).string(), timeoutMs);
    } finally {
      c.close();
    }
  }

  /** From the member's status, when the target's user may read it. */
  async version(): Promise<string> {
    return (await this.status().catch(() => null))?.version ?? 'unknown (status refused)';
  }
}

/** etcd3's options for a target's members: the user, and TLS with its CA. */
export function etcdOptions(
  auth: { username: string; password: string } | undefined,
  tls: TargetTls | null,
): Partial<IOptions> {
  return {
    ...(auth ? { auth } : {}),
    ...(tls
      ? {
          credentials: { rootCertificate: Buffer.from(tls.ca ?? '') },
          ...(tls.servername ? { grpcOptions: { 'grpc.ssl_target_name_override': tls.servername } } : {}),
        }
      : {}),
  };
}
