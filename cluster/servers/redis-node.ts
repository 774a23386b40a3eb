import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';
import type { RedisEndpoint, RedisServer } from '../node.ts';

export type { RedisEndpoint } from '../node.ts';

/**
 * `none`: no RDB, no AOF — a restart comes back empty (the Redlock failure mode the spec warns about).
 * `aof-always`: the spec's remedy — every write fsynced to the AOF before the reply.
 */
export type RedisPersistence = 'none' | 'aof-always';

/**
 * The server binary a Redis node runs (`--redis-server`): Redis, or Valkey, its fork, whose config keys and
 * commands are Redis 7.2's. Checked on Debian's 7.0.15 and bookworm-backports' 8.0.1 with `CONFIG GET *`: every line
 * `prepare` writes is taken (`masterauth` is Valkey's alias of `primaryauth`); what differs are defaults we do not
 * set — Valkey frees expired and deleted keys lazily (`lazyfree-lazy-*` yes), a 10 MB replication backlog (1 MB),
 * `io-threads-do-reads` yes — and both read POSIX `clock_gettime` for their monotonic clock (the clock shim's).
 */
export type RedisServerKind = 'redis' | 'valkey';

/** The binary (and the Debian package's name for it) of each. */
export const REDIS_SERVER_BINARY: Readonly<Record<RedisServerKind, 'redis-server' | 'valkey-server'>> = {
  redis: 'redis-server',
  valkey: 'valkey-server',
};

/**
 * Which server answered and its own version, from `INFO server`. Valkey keeps `redis_version` at the Redis it forked
 * from (7.2.4, for clients that parse it) and says what it is in `server_name` and `valkey_version`.
 */
export function serverOfInfo(info: string): { server: string; version: string } {
  const field = (name: string) => new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1];
  const name = field('server_name');
  if (name && name !== 'redis') return { server: `${name}-server`, version: field(`${name}_version`) ?? 'unknown' };
  return { server: 'redis-server', version: field('redis_version') ?? 'unknown' };
}

export interface RedisNodeOptions extends ServerNodeOptions {
  persistence: RedisPersistence;
  /** `host:port` of a primary to replicate from (the failover pair's replica). */
  replicaOf?: string;
  /** The binary to run (default redis). */
  server?: RedisServerKind;
  /** `requirepass` of this node and `masterauth` towards its primary (one password for the whole run). */
  password: string;
}

export class RedisNode extends ServerNode implements RedisServer {
  // Each as its Debian package's account (valkey-server's postinst creates `valkey`); else `nobody` (process-host.ts).
  protected override readonly serverUser: 'redis' | 'valkey';
  private readonly redisOpts: RedisNodeOptions;
  private replicaOf: string | undefined;
  /** `redis-server` or `valkey-server`: the key of this node's version in the test record (versions.ts). */
  readonly server: 'redis-server' | 'valkey-server';

  constructor(opts: RedisNodeOptions) {
    super(opts);
    this.redisOpts = opts;
    this.replicaOf = opts.replicaOf;
    this.serverUser = opts.server ?? 'redis';
    this.server = REDIS_SERVER_BINARY[opts.server ?? 'redis'];
  }

  /**
   * The configuration goes in a file, not on the command line: `requirepass` on argv would be readable by every
   * local user in /proc/<pid>/cmdline. Created 0600; rewritten at every start, since `setReplicaOf` changes it.
   */
  private get configFile(): string {
    return path.join(this.home, 'redis.conf');
  }

  protected override async prepare(): Promise<void> {
    const persistence =
      this.redisOpts.persistence === 'aof-always' ? ['appendonly yes', 'appendfsync always'] : ['appendonly no'];
    const lines = [
      `port ${this.port}`,
      'bind 127.0.0.1',
      // On: with a password set it changes nothing for us, and it is the safe default should the bind ever widen.
      'protected-mode yes',
      `requirepass ${this.redisOpts.password}`,
      // Either node of the failover pair may become the replica of the other.
      `masterauth ${this.redisOpts.password}`,
      // Quoted: a results path may hold spaces (Redis splits an unquoted line on them); `\` and `"` escaped.
      `dir "${this.dataDir.replace(/[\\"]/g, '\\$&')}"`,
      'save ""',
      // A replica's full sync starts at once instead of after Redis's default 5 s wait for more replicas.
      'repl-diskless-sync-delay 0',
      ...persistence,
      ...(this.replicaOf ? [`replicaof ${this.replicaOf.split(':').join(' ')}`] : []),
      '',
    ];
    fs.rmSync(this.configFile, { force: true });
    fs.writeFileSync(this.configFile, lines.join('\n'), { mode: 0o600, flag: 'wx' });
  }

  protected command(): Command {
    return { file: this.server, args: [this.configFile], user: this.serverUser };
  }

  /** Stop replicating (the promotion a Sentinel would do) or start replicating from another node. */
  setReplicaOf(target: string | undefined): void {
    this.replicaOf = target;
  }

  /** Delete everything the node persisted: the next start is a node with empty memory. */
  wipe(): void {
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** The node's real port (not a fault proxy) with the run's password. */
  endpoint(): RedisEndpoint {
    return { host: '127.0.0.1', port: this.port, password: this.redisOpts.password };
  }

  client(): Redis {
    return new Redis({
      ...this.endpoint(),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
  }

  private async withClient<T>(fn: (r: Redis) => Promise<T>): Promise<T> {
    const r = this.client();
    r.on('error', () => {});
    try {
      await r.connect();
      return await fn(r);
    } finally {
      r.disconnect();
    }
  }

  protected async probe(): Promise<void> {
    await this.withClient(async (r) => {
      const pong = await r.ping();
      if (pong !== 'PONG') throw new Error(`PING answered ${pong}`);
    });
  }

  async version(): Promise<string> {
    return this.withClient(async (r) => {
      const answered = serverOfInfo(await r.info('server'));
      // The binary we started is not proof of what answers (a valkey-server installed as redis-server's alternative).
      return answered.server === this.server ? answered.version : `${answered.server} ${answered.version}`;
    });
  }
}
