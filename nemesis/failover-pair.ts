import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisNode } from '../cluster/servers/redis-node.ts';
import { TcpProxy } from './proxy/tcp-proxy.ts';

/** Name of the replication-link proxy in the run's proxy map (so the run closes it with the others). */
export const REPLICATION_PROXY = 'redis-replication';
/** Name of the proxy clients use for "the primary": it follows promotions. */
export const PRIMARY_PROXY = 'redis-primary';

/**
 * The seed table's single-Redis row: a primary and a replica, with the promotion Sentinel would do. Roles move
 * between the two nodes (`redis-primary`, `redis-replica` are node names; `primary`/`replica` here are roles).
 *
 * Replication goes through a proxy of ours. Why: on loopback a write reaches the replica within microseconds,
 * so "the primary fails before the lock key is replicated" would essentially never happen by itself. In
 * production it happens under replication lag (load, a slow link, a network blip). The failover fault makes
 * that lag explicitly — it cuts the replication link first — and then kills the primary while a lock taken
 * since exists only there.
 */
export class FailoverPair {
  private constructor(
    public primary: RedisNode,
    public replica: RedisNode,
    /** What clients connect to as "the primary". */
    readonly clientProxy: TcpProxy,
    /** Replica → primary replication link. */
    readonly link: TcpProxy,
  ) {}

  /** Route the replica's replication through a proxy of ours and wait until it is in sync. */
  static async setup(
    pair: { primary: RedisNode; replica: RedisNode },
    clientProxy: TcpProxy,
    proxies: Map<string, TcpProxy>,
  ): Promise<FailoverPair> {
    const link = proxies.get(REPLICATION_PROXY) ?? (await TcpProxy.start({ targetPort: pair.primary.port }));
    proxies.set(REPLICATION_PROXY, link);
    link.heal();
    link.setTarget(pair.primary.port);
    const p = new FailoverPair(pair.primary, pair.replica, clientProxy, link);
    p.replica.setReplicaOf(`127.0.0.1:${link.port}`);
    await command(p.replica, ['REPLICAOF', '127.0.0.1', String(link.port)]);
    await p.waitInSync(10_000);
    return p;
  }

  /** Replication lag on demand: the replica stops receiving the primary's writes until `restoreReplication`. */
  cutReplication(): void {
    this.link.partition();
  }

  restoreReplication(): void {
    this.link.heal();
  }

  /**
   * The primary fails and the replica is promoted (REPLICAOF NO ONE), then clients are sent to it: the
   * client-facing proxy now targets the new primary and resets every connection, as a Sentinel-aware client
   * reconnecting after `+switch-master` would. Whatever the old primary had not replicated is gone.
   * `beforeClients` runs on the promoted node before any client can reach it (to record what it has).
   */
  async failover<T>(
    beforeClients: (promoted: RedisNode) => Promise<T>,
  ): Promise<{ killed: RedisNode; promoted: RedisNode; seen: T }> {
    const killed = this.primary;
    const promoted = this.replica;
    await killed.kill();
    promoted.setReplicaOf(undefined);
    await command(promoted, ['REPLICAOF', 'NO', 'ONE']);
    const seen = await beforeClients(promoted);
    this.clientProxy.setTarget(promoted.port);
    this.clientProxy.resetConnections();
    this.primary = promoted;
    this.replica = killed;
    this.link.setTarget(promoted.port);
    return { killed, promoted, seen };
  }

  /** Bring the failed node back as a replica of the new primary (so the fault can happen again). */
  async rejoin(): Promise<void> {
    this.link.heal();
    this.replica.setReplicaOf(`127.0.0.1:${this.link.port}`);
    if (!this.replica.running) {
      this.replica.wipe();
      await this.replica.start();
    }
    await this.waitInSync(10_000);
  }

  /** Until the replica reports its master link up (a full sync of a small dataset takes milliseconds). */
  private async waitInSync(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let last = '';
    while (performance.now() < deadline) {
      try {
        last = String(await command(this.replica, ['INFO', 'replication']));
        if (/master_link_status:up/.test(last)) return;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(50);
    }
    throw new Error(
      `${this.replica.name} did not sync from ${this.primary.name} within ${timeoutMs} ms (last INFO replication: ${last.replace(/\s+/g, ' ').slice(0, 200)})`,
    );
  }
}

/** One command on a node's real port (not through a proxy: the nemesis is not subject to its own faults). */
export async function command(node: RedisNode, args: string[]): Promise<unknown> {
  const r = node.client();
  r.on('error', () => {});
  try {
    await r.connect();
    return await r.call(args[0], ...args.slice(1));
  } finally {
    r.disconnect();
  }
}
