import type { ZkNode } from '../../cluster/servers/zk-node.ts';
import { runTiming } from '../../common/run-timing.ts';
import { ZkSession } from '../../locks/zookeeper/zk-session.ts';
import type { FaultContext } from '../../nemesis/fault.ts';

/**
 * The harness's own sessions, one per server, on its own port (never through a proxy) and as the run's identity
 * (the lock directories' ACL names it). A session on the server that made the node reads what that server applied
 * before it answered the create: another server may not have applied it yet.
 */
export class ZkReaders {
  private readonly sessions = new Map<ZkNode, Promise<ZkSession>>();

  constructor(private readonly ctx: Pick<FaultContext, 'config'>) {}

  on(node: ZkNode): Promise<ZkSession> {
    let s = this.sessions.get(node);
    if (!s) {
      const { ttlMs } = this.ctx.config;
      s = ZkSession.open(node.connectString, ttlMs, runTiming({ ttlMs }).connectTimeoutMs, node.userAuth);
      s.catch(() => {}); // opened ahead of its use: its failure is met where it is used
      this.sessions.set(node, s);
    }
    return s;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.then((x) => x.close()).catch(() => {})));
  }
}
