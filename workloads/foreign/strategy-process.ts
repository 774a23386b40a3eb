/**
 * A LockStrategy of this language (a built-in npm row, or any `.ts` strategy module) served as a lock process: the
 * lock-client protocol on stdin/stdout (docs/protocol.md), each request answered by the strategy's
 * client. `lock-check <built-in>` runs it, so an in-process strategy goes through the same contract as a foreign lock
 * — in a process of its own, as a run's client is: an error its library leaves unhandled ends this process (as it
 * would end the library's user's), and lock-check sees the process exit instead of crashing itself.
 *
 * Usage (the harness starts it): `node --import tsx strategy-process.ts <strategy module URL>`.
 */
import readline from 'node:readline';
import type { ForeignRequest } from './protocol.ts';
import { isLockNotAcquired, type Lease, type LockClient, type LockStrategy } from '../../locks/strategy.ts';

// stdout carries the protocol: anything a library prints goes to stderr, where the harness shows it.
console.log = console.error;
console.info = console.error;

const moduleUrl = process.argv[2];
if (!moduleUrl) {
  console.error('strategy-process: give the strategy module URL');
  process.exit(2);
}

type Reply = Record<string, unknown>;

let client: LockClient | null = null;
const leases = new Map<string, Lease>();

async function answer(req: ForeignRequest & { id: number }, strategy: LockStrategy): Promise<Reply> {
  if (req.op === 'connect') {
    const { endpoints: e } = req;
    client = await strategy.connect({
      redis: e.redis,
      etcd: e.etcd,
      ...(e.etcdAuth ? { etcdAuth: e.etcdAuth } : {}),
      zookeeper: e.zookeeper,
      ...(e.zookeeperAuth ? { zookeeperAuth: e.zookeeperAuth } : {}),
      ...(e.postgresUrl ? { postgresUrl: e.postgresUrl } : {}),
      ...(e.pgbouncerUrl ? { pgbouncerUrl: e.pgbouncerUrl } : {}),
      ...(e.dynamodb ? { dynamodb: e.dynamodb } : {}),
      ttlMs: req.ttlMs,
      acquireTimeoutMs: req.acquireTimeoutMs,
      client: req.client,
      seed: req.seed,
    });
    return { ok: true };
  }
  if (!client) return { error: 'not connected' };
  if (req.op === 'close') {
    await client.close();
    return { result: 'closed' };
  }
  if (req.op === 'acquire') {
    try {
      const lease = await client.acquire(req.key);
      leases.set(req.key, lease);
      return { result: 'held', token: lease.token, validityMs: lease.validityMs, attempts: lease.attempts };
    } catch (err) {
      if (isLockNotAcquired(err)) return { result: 'not-acquired', reason: (err as Error).message };
      throw err;
    }
  }
  const lease = leases.get(req.key);
  if (!lease) return { error: `no lease of ${req.key} held by this process` };
  if (req.op === 'release') {
    leases.delete(req.key);
    return { result: 'released', held: await client.release(lease) };
  }
  if (!client.renew) return { error: 'this strategy has no renew' };
  return { result: (await client.renew(lease)) ? 'held' : 'lost' };
}

const strategy = (await import(moduleUrl)).default as LockStrategy;
const lines = readline.createInterface({ input: process.stdin });
// One request at a time, in order: the harness waits for each reply before its next request.
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    const req = JSON.parse(line) as ForeignRequest & { id: number };
    let reply: Reply;
    try {
      reply = await answer(req, strategy);
    } catch (err) {
      reply = { error: (err as Error).message || String(err) };
    }
    process.stdout.write(`${JSON.stringify({ id: req.id, ...reply })}\n`);
    if (req.op === 'close') process.exit(0);
  });
});
lines.on('close', () => process.exit(0));
