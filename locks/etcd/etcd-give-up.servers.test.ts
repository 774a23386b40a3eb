import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';
import etcd, { lockKeyFor } from './etcd.ts';

/**
 * An acquire whose Txn put the lock key but whose answer never came, and whose retries could not reach etcd either,
 * ends in an error: its outcome unknown to the client. The key it may have made is on the client's session lease,
 * which the client goes on keeping alive for its next acquires — so, unless the recipe gives that lease up, the key
 * outlives the TTL for as long as the client lives, and every other client waits on a lock nobody believes it holds
 * (issue 46's "an etcd acquire that gives up leaves its key on a session the client keeps alive"; red before the
 * recipe dropped its session on such an error: the key was still there a TTL + 2 s later). A TTL long enough for the
 * outage to end before the server lets the lease go, so only the recipe decides what becomes of the key.
 */
const TTL_MS = 10_000;
/** etcd's lessor checks expiry every 500 ms; the read must come after that. */
const EXPIRY_MARGIN_MS = 2_000;

const env = useStrategyCluster(etcd, { etcd: 1 }, { ttlMs: TTL_MS, acquireTimeoutMs: 5_000, seed: 46 });

describe('etcd strategy: an acquire that ends in an error', () => {
  it('leaves no key of its own behind past the TTL while the client lives on', async () => {
    const member = env.cluster.etcd[0];
    const port = Number(new URL(member.endpoint).port);
    const proxy = await TcpProxy.start({ targetPort: port, protocol: 'etcd-grpc' });
    const refuse = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => refuse.listen(0, '127.0.0.1', r));
    const direct = member.client();
    try {
      const a = await env.connect({ etcd: [`http://127.0.0.1:${proxy.port}`] });
      await a.release(await a.acquire('warm-up')); // the session lease exists before the shot
      // New connections go to a port that refuses: the open one still reaches etcd until the drop resets it, so the
      // Txn is carried out, its answer lost, and etcd3's retries find no etcd. The acquire ends in an error.
      proxy.setTarget((refuse.address() as net.AddressInfo).port);
      proxy.dropNextReply({ command: 'KV/Txn put', replyIs: 'succeeded', then: 'reset' });
      expect(await a.acquire('give-up').catch((e: unknown) => e)).toBeInstanceOf(Error);
      expect(proxy.droppedReplies().length).toBe(1);
      const key = lockKeyFor('give-up');
      const made = (await direct.get(key).exec()).kvs[0];
      expect(made?.lease, 'the dropped Txn made the key on the session lease').toBe(
        proxy.droppedReplies()[0].request.lease,
      );
      // The client reaches etcd again, and lives on.
      proxy.setTarget(port);
      proxy.resetConnections();
      // The time itself is under test: the key must be gone once a TTL has passed since the client gave up.
      await sleep(TTL_MS + EXPIRY_MARGIN_MS);
      expect((await direct.get(key).exec()).kvs[0], 'the key outlived the TTL on a lease the client keeps').toBe(
        undefined,
      );
    } finally {
      direct.close();
      refuse.close();
      await proxy.close();
    }
  });
});
