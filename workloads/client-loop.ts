/**
 * The bank workload's step loop: acquire → read → think → write → release, each step an invoke and a completion
 * stamped by the client. `client.ts` runs it in a forked process on the real clock; it takes its clock, its lock,
 * its resource and where ops go as arguments so tests can run the very same loop in-process, against an in-memory
 * lock and resource on a virtual clock (test/support/memory-bank.ts), instead of a second copy of these rules.
 */
import type { WriteValue } from '../history/bank.ts';
import type { OpInput } from '../history/op.ts';
import type { ClientSpec } from './client-protocol.ts';
import type { Resource } from './resource.ts';
import { acquireStep, readStep, releaseStep, thinkThenWrite } from './section-steps.ts';
import { watchdogFor } from './lease-watchdog.ts';
import { isLockNotAcquired, seededRandom, type LockClient, type LockStrategy } from '../locks/strategy.ts';

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
  /**
   * An op happened at `at` (the clock's ns). `beforeCall`: an invoke whose call starts the moment this returns — a
   * sink that does work of its own first (a client process writes it ahead to a file) may stamp it again once that
   * is done: later, and still before the call, so the work is not inside the op's interval.
   */
  emit(op: OpInput, at: bigint, beforeCall?: boolean): void;
  log(line: string): void;
  /** Checked between iterations: the loop finishes its current one, then closes its connections. */
  stopping(): boolean;
  /** Hands out the loop's ClientSession.abandonSection, for the client process's last moments (client.ts). */
  onSection?(abandon: () => boolean): void;
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

/** The loop's running state: its connections, its current process id, and the step rules (Jepsen's interpreter). */
export class ClientSession {
  readonly random: () => number;
  private generation: number;
  // One object, not two fields narrowed separately: `crashed` replaces both connections at once.
  readonly conn: { lock: LockClient | null; resource: BankResource | null } = { lock: null, resource: null };

  constructor(readonly loop: ClientLoop) {
    this.random = seededRandom(loop.spec.seed);
    this.generation = loop.spec.generation ?? 0;
  }

  /** The write of the section the client is thinking in (between its read and its write), else null. */
  pendingWrite: WriteValue | null = null;

  /**
   * The lock library is ending this process while it thinks (LockStrategy.libraryCrash): its write will never be sent,
   * because the library decided it lost the lock — recorded as that, a `fail` with lock-lost. Synchronous: called
   * from the process's last moments. False when no write was pending (the crash came elsewhere).
   */
  abandonSection(): boolean {
    const w = this.pendingWrite;
    if (!w) return false;
    this.pendingWrite = null;
    this.op({ type: 'invoke', f: 'write', value: w });
    this.op({ type: 'fail', f: 'write', value: w, error: 'lock-lost' });
    return true;
  }

  /** The history process id this client runs as now: `slot + concurrency × generation`. */
  pid(): number {
    return this.loop.spec.slot + this.loop.spec.concurrency * this.generation;
  }

  now(): bigint {
    return this.loop.clock.now();
  }

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => this.loop.clock.setTimer(ms, resolve));
  }

  withTimeout<T>(p: Promise<T>, ms: number, step: string): Promise<T> {
    let cancel = () => {};
    return Promise.race([
      p,
      new Promise<never>(
        (_, reject) => (cancel = this.loop.clock.setTimer(ms, () => reject(new StepTimeout(step, ms)))),
      ),
    ]).finally(() => cancel());
  }

  /** An op of the client's current process, stamped now unless `at` says when it happened. */
  op(o: Omit<OpInput, 'process'>, at: bigint = this.now(), beforeCall = false): void {
    this.loop.emit({ ...o, process: this.pid() }, at, beforeCall);
  }

  /** An unknown outcome: the old connections may still have the op in flight, so abandon them (Jepsen's rule). */
  crashed(): void {
    const { lock: l, resource: r } = this.conn;
    this.conn.lock = null;
    this.conn.resource = null;
    void l?.close().catch(() => {});
    void r?.close().catch(() => {});
    this.generation++;
  }

  async connect(): Promise<void> {
    const { loop, conn } = this;
    const { spec } = loop;
    while (!loop.stopping() && (!conn.lock || !conn.resource)) {
      const what = conn.lock ? 'resource' : 'lock';
      const invokedAt = this.now();
      try {
        conn.lock ??= lockClientOrThrow(
          await this.withTimeout(loop.strategy.connect(spec.ctx), spec.stepTimeoutMs, 'connect'),
        );
        conn.resource ??= await this.withTimeout(loop.connectResource(), spec.stepTimeoutMs, 'connect');
      } catch (err) {
        // Recorded only when it fails, so a run that never connects says why instead of ending with no ops.
        // Nothing was done to the data: `fail`. Both stamps are the real ones, though sent together.
        const failedAt = this.now();
        this.op({ type: 'invoke', f: 'connect', value: { what } }, invokedAt);
        this.op({ type: 'fail', f: 'connect', value: { what }, error: (err as Error).message }, failedAt);
        loop.log(`client ${spec.slot}: connect failed (${(err as Error).message}); retrying`);
        await this.sleep(200);
      }
    }
  }

  /**
   * Start `fn` and stamp when its promise settles: the earliest moment this process can see the reply, before the
   * continuations of whoever awaits it (the step's timeout race, its `finally`). A synchronous throw is a rejection.
   */
  call<T>(fn: () => Promise<T>): { settled: Promise<T>; settledAt: () => bigint | undefined } {
    let at: bigint | undefined;
    let p: Promise<T>;
    try {
      p = fn();
    } catch (err) {
      at = this.now(); // it ended here, its invoke already sent
      p = Promise.reject(err);
    }
    const settled = Promise.resolve(p).then(
      (r) => {
        at = this.now();
        return r;
      },
      (err: unknown) => {
        at ??= this.now();
        throw err;
      },
    );
    return { settled, settledAt: () => at };
  }

  /**
   * Run one step as invoke + completion; a timeout or unexpected error is `info` and ends this process id.
   *
   * The invoke is stamped and emitted before `fn` starts: a call that exits the process synchronously must leave
   * its invoke on record (a client process writes it ahead to a file and holds the message for its completion,
   * workloads/op-outbox.ts, so the harness does not wake inside the call). The completion is stamped when the
   * call's promise settles, and only then built and emitted; the step timer is set after the call started.
   */
  async step<T>(
    f: string,
    value: unknown,
    fn: () => Promise<T>,
    complete: (r: T) => { type: 'ok' | 'fail'; value: unknown; error?: string },
  ): Promise<T | undefined> {
    // The invoke is on record before the call starts: a process that dies inside the call (a plugin's process.exit,
    // a SIGKILL right after its request went out) must have said what it was doing — an op that may have taken
    // effect is never missing from the history. Its write-ahead (one write(2)) comes before the interval: the client
    // process stamps the invoke again once it is written (op-outbox.ts); the send is after the completion.
    this.op({ type: 'invoke', f, value }, this.now(), true);
    const { settled, settledAt } = this.call(fn);
    try {
      const r = await this.withTimeout(settled, this.loop.spec.stepTimeoutMs, f);
      this.op({ f, ...complete(r) }, settledAt() ?? this.now());
      return r;
    } catch (err) {
      // A timeout has no settle time: it completes when the step timer fired, now.
      const at = settledAt() ?? this.now();
      // The brand, not `instanceof`: a plugin may throw the LockNotAcquired of another copy of fencepost.
      if (isLockNotAcquired(err)) {
        this.op({ type: 'fail', f, value, error: 'not-acquired' }, at);
        return undefined;
      }
      this.op({ type: 'info', f, value, error: err instanceof StepTimeout ? 'timeout' : (err as Error).message }, at);
      this.crashed();
      return undefined;
    }
  }
}

/** One iteration on live connections: acquire → read → think → write → release. */
async function iteration(session: ClientSession, l: LockClient, r: BankResource): Promise<void> {
  const { spec } = session.loop;
  const account = Math.floor(session.random() * spec.accounts);
  const lease = await acquireStep(session, l, account);
  if (!lease) {
    await session.sleep(10 + session.random() * 20);
    return;
  }
  const watchdog = watchdogFor(session, l, lease, account);
  const read = await readStep(session, r, lease, account);
  if (read) await thinkThenWrite(session, l, r, read, lease, watchdog);
  watchdog.stop();
  // After an info the connections are gone; the lease dies with its TTL/session, as it would in production.
  if (session.conn.lock === l) await releaseStep(session, l, lease, account);
  // A seeded 0–20 ms stagger between iterations (Jepsen's `stagger`). Without it clients fall into lockstep: under
  // the postgres strategy the writer that just won reads the new version first, thinks as long as the others and
  // so wins again — a 5 s run once had every one of 49 writes from one client, so no two clients ever raced.
  await session.sleep(session.random() * 20);
}
export async function runClientLoop(loop: ClientLoop): Promise<void> {
  const session = new ClientSession(loop);
  loop.onSection?.(() => session.abandonSection());
  while (!loop.stopping()) {
    await session.connect();
    const { lock: l, resource: r } = session.conn;
    if (loop.stopping() || !l || !r) break;
    await iteration(session, l, r);
  }
  const { lock: l, resource: r } = session.conn;
  await Promise.all([l?.close().catch(() => {}), r?.close().catch(() => {})]);
}
