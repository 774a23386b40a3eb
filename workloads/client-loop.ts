/**
 * The bank workload's step loop: acquire → read → think → write → release, each step an invoke and a completion
 * stamped by the client. `client.ts` runs it in a forked process on the real clock; it takes its clock, its lock,
 * its resource and where ops go as arguments so tests can run the very same loop in-process, against an in-memory
 * lock and resource on a virtual clock (test/support/memory-bank.ts), instead of a second copy of these rules.
 */
import type { AcquireOk, ReadOk, WriteValue } from '../history/bank.ts';
import type { OpInput } from '../history/op.ts';
import { WATCHDOG_PROCESS_OFFSET, type ClientSpec } from './client-protocol.ts';
import { runTiming } from '../common/run-timing.ts';
import type { Resource } from './resource.ts';
import { isLockNotAcquired, seededRandom, type Lease, type LockClient, type LockStrategy } from './strategy.ts';

/** What the loop needs of the resource (Postgres in a run). */
export type BankResource = Pick<Resource, 'read' | 'write' | 'close'>;

/** Time as the client sees it: the real clock in a client process, a virtual one in-process. */
export interface ClientClock {
  /** Now, in ns, on the clock the history is stamped with (CLOCK_MONOTONIC in a run). */
  now(): bigint;
  /** Call `fn` after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export interface ClientLoop {
  spec: Pick<
    ClientSpec,
    | 'slot'
    | 'concurrency'
    | 'ctx'
    | 'mode'
    | 'thinkMs'
    | 'accounts'
    | 'watchdog'
    | 'seed'
    | 'stepTimeoutMs'
    | 'generation'
  >;
  strategy: Pick<LockStrategy, 'connect'>;
  connectResource(): Promise<BankResource>;
  clock: ClientClock;
  /** An op happened at `at` (the clock's ns). */
  emit(op: OpInput, at: bigint): void;
  log(line: string): void;
  /** Checked between iterations: the loop finishes its current one, then closes its connections. */
  stopping(): boolean;
}

/**
 * What `connect()` resolved to, if it is a LockClient. A plugin's `undefined` would otherwise leave `conn.lock`
 * null and the loop going round again without ever yielding to a timer — 100 % CPU, no op, deaf to `stop`.
 */
function lockClientOrThrow(client: unknown): LockClient {
  const c = client as Partial<LockClient> | null;
  if (typeof c === 'object' && c !== null && typeof c.acquire === 'function' && typeof c.release === 'function')
    return c as LockClient;
  const what =
    c === null
      ? 'null'
      : Array.isArray(c)
        ? 'an array'
        : typeof c === 'object'
          ? 'an object without acquire/release'
          : typeof c;
  throw new Error(`connect() resolved to ${what}, not a LockClient (an object with acquire and release)`);
}

class StepTimeout extends Error {
  constructor(step: string, ms: number) {
    super(`${step} timed out after ${ms} ms`);
  }
}

export async function runClientLoop(loop: ClientLoop): Promise<void> {
  const { spec, clock } = loop;
  const stamp = () => clock.now();
  const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimer(ms, resolve));
  const withTimeout = <T>(p: Promise<T>, ms: number, step: string): Promise<T> => {
    let cancel = () => {};
    return Promise.race([
      p,
      new Promise<never>((_, reject) => (cancel = clock.setTimer(ms, () => reject(new StepTimeout(step, ms))))),
    ]).finally(() => cancel());
  };
  const sendOp = (op: OpInput, at: bigint = stamp()) => loop.emit(op, at);

  const random = seededRandom(spec.seed);
  let generation = spec.generation ?? 0;
  const pid = () => spec.slot + spec.concurrency * generation;
  // One object, not two `let`s: closures below replace the connections, and TS's narrowing can't see that.
  const conn: { lock: LockClient | null; resource: BankResource | null } = { lock: null, resource: null };

  const op = (o: Omit<OpInput, 'process'>, at?: bigint) => sendOp({ ...o, process: pid() }, at);

  /** An unknown outcome: the old connections may still have the op in flight, so abandon them (Jepsen's rule). */
  const crashed = () => {
    const { lock: l, resource: r } = conn;
    conn.lock = null;
    conn.resource = null;
    void l?.close().catch(() => {});
    void r?.close().catch(() => {});
    generation++;
  };

  const connect = async () => {
    while (!loop.stopping() && (!conn.lock || !conn.resource)) {
      const what = conn.lock ? 'resource' : 'lock';
      const invokedAt = stamp();
      try {
        conn.lock ??= lockClientOrThrow(
          await withTimeout(loop.strategy.connect(spec.ctx), spec.stepTimeoutMs, 'connect'),
        );
        conn.resource ??= await withTimeout(loop.connectResource(), spec.stepTimeoutMs, 'connect');
      } catch (err) {
        // Recorded only when it fails, so a run that never connects says why instead of ending with no ops.
        // Nothing was done to the data: `fail`. Both stamps are the real ones, though sent together.
        const failedAt = stamp();
        op({ type: 'invoke', f: 'connect', value: { what } }, invokedAt);
        op({ type: 'fail', f: 'connect', value: { what }, error: (err as Error).message }, failedAt);
        loop.log(`client ${spec.slot}: connect failed (${(err as Error).message}); retrying`);
        await sleep(200);
      }
    }
  };

  /** Run one step as invoke + completion; a timeout or unexpected error is `info` and ends this process id. */
  async function step<T>(
    f: string,
    value: unknown,
    fn: () => Promise<T>,
    complete: (r: T) => { type: 'ok' | 'fail'; value: unknown; error?: string },
  ): Promise<T | undefined> {
    op({ type: 'invoke', f, value });
    try {
      const r = await withTimeout(fn(), spec.stepTimeoutMs, f);
      const doneAt = stamp();
      op({ f, ...complete(r) }, doneAt);
      return r;
    } catch (err) {
      // The brand, not `instanceof`: a plugin may throw the LockNotAcquired of another copy of fencepost.
      if (isLockNotAcquired(err)) {
        op({ type: 'fail', f, value, error: 'not-acquired' });
        return undefined;
      }
      op({ type: 'info', f, value, error: err instanceof StepTimeout ? 'timeout' : (err as Error).message });
      crashed();
      return undefined;
    }
  }

  while (!loop.stopping()) {
    await connect();
    const { lock: l, resource: r } = conn;
    if (loop.stopping() || !l || !r) break;
    const account = Math.floor(random() * spec.accounts);

    const lease = await step<Lease>(
      'acquire',
      { account },
      () => l.acquire(`account-${account}`),
      (lz) => ({
        type: 'ok',
        value: { account, token: lz.token, validityMs: lz.validityMs, attempts: lz.attempts } satisfies AcquireOk,
      }),
    );
    if (!lease) {
      await sleep(10 + random() * 20);
      continue;
    }

    // Redisson-style watchdog: renew every TTL/3; once a renewal fails the lease is lost and the write is skipped.
    let lost = false;
    let stopWatchdog = () => {};
    if (spec.watchdog && l.renew) {
      const wdProcess = WATCHDOG_PROCESS_OFFSET + pid();
      const every = runTiming(spec.ctx).watchdogEveryMs;
      const tick = () => {
        stopWatchdog = clock.setTimer(every, tick);
        if (lost) return;
        sendOp({ process: wdProcess, type: 'invoke', f: 'renew', value: { account, token: lease.token } });
        l.renew!(lease).then(
          (ok) => {
            if (!ok) lost = true;
            sendOp({
              process: wdProcess,
              type: ok ? 'ok' : 'fail',
              f: 'renew',
              value: { account },
              ...(ok ? {} : { error: 'lock-lost' }),
            });
          },
          (err) => {
            lost = true;
            sendOp({ process: wdProcess, type: 'fail', f: 'renew', value: { account }, error: (err as Error).message });
          },
        );
      };
      stopWatchdog = clock.setTimer(every, tick);
    }

    const fenceToken = spec.mode === 'fenced' ? lease.token : undefined;
    const answer = await step(
      'read',
      { account, token: fenceToken },
      () => r.read(account, fenceToken),
      (v) =>
        'stale' in v
          ? { type: 'fail', value: { account, token: fenceToken }, error: 'stale-token' }
          : { type: 'ok', value: v },
    );
    const read: ReadOk | undefined = answer && !('stale' in answer) ? answer : undefined;
    if (read) {
      await sleep(spec.thinkMs);
      const delta = 1 + Math.floor(random() * 100);
      const w: WriteValue = {
        account,
        from: read.balance,
        to: read.balance + delta,
        delta,
        token: lease.token,
        basedOn: read.lastWriteId,
        version: read.version,
      };
      if (lost) {
        op({ type: 'invoke', f: 'write', value: w });
        op({ type: 'fail', f: 'write', value: w, error: 'lock-lost' });
      } else {
        await step(
          'write',
          w,
          () => r.write(w, spec.mode, pid()),
          (res) =>
            res.ok
              ? { type: 'ok', value: { ...w, writeId: res.writeId } }
              : { type: 'fail', value: w, error: res.reason },
        );
      }
    }
    stopWatchdog();
    // After an info the connections are gone; the lease dies with its TTL/session, as it would in production.
    if (conn.lock === l) {
      await step(
        'release',
        { account, token: lease.token },
        () => l.release(lease),
        (released) => ({ type: 'ok', value: { account, released } }),
      );
    }
    // A seeded 0–20 ms stagger between iterations (Jepsen's `stagger`). Without it clients fall into lockstep: under
    // the postgres strategy the writer that just won reads the new version first, thinks as long as the others and
    // so wins again — a 5 s run once had every one of 49 writes from one client, so no two clients ever raced.
    await sleep(random() * 20);
  }
  await Promise.all([conn.lock?.close().catch(() => {}), conn.resource?.close().catch(() => {})]);
}
