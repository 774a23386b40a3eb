/**
 * The bare client of `bench throughput`: what a run's client process does — the same strategy module's
 * acquire → read → think → write → release on the same Resource, with the same sleeps (the think, the 10–30 ms
 * back-off after a lock not acquired, the seeded 0–20 ms stagger: workloads/client-loop.ts) — without the
 * harness: no op stamped, sent over IPC or journalled, no step timeout. It only counts the calls that succeeded,
 * as a run's `ok` ops. Forked by bench/throughput.ts, never by hand.
 */
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { Resource } from '../workloads/resource.ts';
import { isLockNotAcquired, seededRandom, type LockClient, type LockStrategy } from '../workloads/strategy.ts';

export type BareToClient = { type: 'start'; spec: ClientSpec } | { type: 'go'; untilNs: string };
export type BareFromClient =
  | { type: 'ready' }
  | { type: 'done'; ok: number; notAcquired: number; errors: number; lastError?: string };

const send = (m: BareFromClient) => process.send?.(m);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let spec: ClientSpec;
let lock: LockClient | null = null;
let resource: Resource | null = null;
let strategy: LockStrategy;

async function connect(): Promise<void> {
  lock ??= await strategy.connect(spec.ctx);
  resource ??= await Resource.connect(spec.pg);
}

async function loop(untilNs: bigint): Promise<void> {
  const random = seededRandom(spec.seed);
  const counts = { ok: 0, notAcquired: 0, errors: 0 };
  let lastError: string | undefined;
  const inTime = () => process.hrtime.bigint() <= untilNs;
  // A call that completed before the deadline counts, as a run's op completed before its time limit does.
  const ok = () => {
    if (inTime()) counts.ok++;
  };
  while (inTime()) {
    try {
      await connect();
      const account = Math.floor(random() * spec.accounts);
      let lease;
      try {
        lease = await lock!.acquire(`account-${account}`);
      } catch (err) {
        if (!isLockNotAcquired(err)) throw err;
        counts.notAcquired++;
        await sleep(10 + random() * 20);
        continue;
      }
      ok();
      const token = spec.mode === 'fenced' ? lease.token : undefined;
      const read = await resource!.read(account, token);
      if (!('stale' in read)) {
        ok();
        await sleep(spec.thinkMs);
        const delta = 1 + Math.floor(random() * 100);
        const w = {
          account,
          from: read.balance,
          to: read.balance + delta,
          delta,
          token: lease.token,
          basedOn: read.lastWriteId,
          version: read.version,
        };
        if ((await resource!.write(w, spec.mode, spec.slot)).ok) ok();
      }
      await lock!.release(lease);
      ok();
      await sleep(random() * 20);
    } catch (err) {
      // What the client loop records as `info`: the connections are dropped and made afresh.
      counts.errors++;
      lastError = (err as Error).message;
      void lock?.close().catch(() => {});
      void resource?.close().catch(() => {});
      lock = null;
      resource = null;
      await sleep(200);
    }
  }
  await Promise.all([lock?.close().catch(() => {}), resource?.close().catch(() => {})]);
  process.send?.({ type: 'done', ...counts, ...(lastError ? { lastError } : {}) } satisfies BareFromClient, () =>
    process.exit(0),
  );
}

process.on('message', (msg: BareToClient) => {
  if (msg.type === 'start') {
    spec = msg.spec;
    void (async () => {
      strategy = (await import(spec.strategyUrl)).default as LockStrategy;
      await connect();
      send({ type: 'ready' });
    })().catch((err) => {
      console.error(`bare client ${msg.spec.slot}: ${(err as Error).stack}`);
      process.exit(1);
    });
  }
  if (msg.type === 'go') void loop(BigInt(msg.untilNs));
});
process.on('disconnect', () => process.exit(3));
