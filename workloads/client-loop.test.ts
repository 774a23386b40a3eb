import { describe, expect, it } from 'vitest';
import type { OpInput } from '../history/op.ts';
import { VirtualTime } from '../test/support/virtual-time.ts';
import { runClientLoop, type BankResource } from './client-loop.ts';
import type { Lease, LockClient, LockStrategy } from '../locks/strategy.ts';

describe('the client loop and a plugin whose connect() resolves to a non-object', () => {
  it.each([undefined, null, 42, {}])(
    '%s: records a failed connect, retries on a timer, and stops when told',
    async (value) => {
      const ops: OpInput[] = [];
      let stop = false;
      const strategy = { connect: async () => value } as unknown as Pick<LockStrategy, 'connect'>;
      const done = runClientLoop({
        spec: {
          slot: 0,
          concurrency: 1,
          ctx: { redis: [], etcd: [], zookeeper: '', ttlMs: 1000, acquireTimeoutMs: 1000, client: 0, seed: 1 },
          mode: 'plain',
          thinkMs: 0,
          accounts: 1,
          watchdog: false,
          seed: 1,
          stepTimeoutMs: 1000,
        } as never,
        strategy,
        connectResource: () => Promise.reject(new Error('not reached: the lock connects first')),
        clock: {
          now: () => process.hrtime.bigint(),
          setTimer: (ms, fn) => {
            const t = setTimeout(fn, ms);
            return () => clearTimeout(t);
          },
        },
        emit: (op) => void ops.push(op),
        log: () => {},
        stopping: () => stop,
      });
      // A loop that spins in microtasks never lets this timer fire: the test would time out. The time is under
      // test: in it, a loop retrying 200 ms apart fails at most 4 times.
      const LOOP_RUNS_MS = 500;
      await new Promise((r) => setTimeout(r, LOOP_RUNS_MS));
      stop = true;
      await done;
      const fails = ops.filter((o) => o.f === 'connect' && o.type === 'fail');
      expect(fails.length).toBeGreaterThanOrEqual(1);
      expect(fails.length).toBeLessThanOrEqual(4); // 200 ms apart, not a spin
      expect(fails[0].error).toMatch(
        /^connect\(\) resolved to .+, not a LockClient \(an object with acquire and release\)$/,
      );
    },
  );
});

describe('what the client loop stamps: the call only', () => {
  /**
   * Every call takes exactly CALL_MS on the virtual clock and every emit (the IPC send, in a client process) costs
   * EMIT_MS of it. The stamps of an op's invoke and completion bracket the invoke's send and the call, not the
   * completion's send (the invoke must leave before the call starts: see the process.exit test).
   */
  const CALL_MS = 5;
  const EMIT_MS = 1;

  async function stampedRun(opts: {
    watchdog: boolean;
    throwSync?: boolean;
    validityMs?: number;
    onAcquire?: (emitted: { op: OpInput; atMs: number }[]) => void;
  }) {
    const time = new VirtualTime();
    const call = <T>(v: T) => time.sleep(CALL_MS).then(() => v);
    const lease: Lease = {
      key: 'account-0',
      token: '7',
      attempts: 1,
      ...(opts.validityMs !== undefined ? { validityMs: opts.validityMs } : {}),
    };
    const lock: LockClient = {
      acquire: () => {
        opts.onAcquire?.(ops.slice(-1));
        if (opts.throwSync) throw new Error('thrown before any promise');
        return call(lease);
      },
      renew: () => call(true),
      release: () => call(true),
      close: async () => {},
    };
    const resource: BankResource = {
      read: (account) => call({ account, balance: 1000, version: 0, lastWriteId: 0 }),
      write: () => call({ ok: true as const, writeId: 1 }),
      close: async () => {},
    };
    const ops: { op: OpInput; atMs: number; beforeCall: boolean }[] = [];
    let done = false;
    const loop = runClientLoop({
      spec: {
        slot: 0,
        concurrency: 1,
        ctx: { redis: [], etcd: [], zookeeper: '', ttlMs: 30, acquireTimeoutMs: 100, client: 0, seed: 1 },
        mode: 'plain',
        // Long enough under a 30 ms TTL for the watchdog (every 10 ms) to renew between read and write.
        thinkMs: opts.watchdog ? 25 : 0,
        accounts: 1,
        watchdog: opts.watchdog,
        seed: 1,
        stepTimeoutMs: 1000,
      },
      strategy: { connect: async () => lock },
      connectResource: async () => resource,
      clock: time.clientClock(() => 0),
      emit: (op, at, beforeCall) => {
        ops.push({ op, atMs: Number(at) / 1e6, beforeCall: beforeCall === true });
        time.nowMs += EMIT_MS;
      },
      log: () => {},
      stopping: () => ops.length >= 40,
    }).finally(() => (done = true));
    await time.run(() => done);
    await loop;
    return ops;
  }

  /** invoke → completion intervals by f, pairing each completion with its process's open invoke. */
  function intervals(ops: { op: OpInput; atMs: number }[]): Map<string, number[]> {
    const open = new Map<unknown, number>();
    const out = new Map<string, number[]>();
    for (const { op, atMs } of ops) {
      if (op.type === 'invoke') open.set(op.process, atMs);
      else {
        const from = open.get(op.process)!;
        open.delete(op.process);
        out.set(op.f, [...(out.get(op.f) ?? []), atMs - from]);
      }
    }
    return out;
  }

  it("acquire, read, write and release: invoke to completion is the invoke's send and the call, not the completion's send", async () => {
    const by = intervals(await stampedRun({ watchdog: false }));
    expect([...by.keys()].sort()).toEqual(['acquire', 'read', 'release', 'write']);
    for (const [f, xs] of by) {
      expect(xs.length, f).toBeGreaterThanOrEqual(4);
      for (const x of xs) expect(x, f).toBeCloseTo(EMIT_MS + CALL_MS, 9);
    }
  });

  it("the watchdog's renew: the same", async () => {
    const renews = intervals(await stampedRun({ watchdog: true })).get('renew') ?? [];
    expect(renews.length).toBeGreaterThanOrEqual(2);
    for (const x of renews) expect(x).toBeCloseTo(EMIT_MS + CALL_MS, 9);
  });

  it("the watchdog's renew ok carries the lease's validity, when the lock reports one (the promise it extends)", async () => {
    const renewed = (ops: { op: OpInput }[]) =>
      ops.filter(({ op }) => op.f === 'renew' && op.type === 'ok').map(({ op }) => op.value);
    const withValidity = renewed(await stampedRun({ watchdog: true, validityMs: 30 }));
    expect(withValidity.length).toBeGreaterThanOrEqual(2);
    for (const v of withValidity) expect(v).toEqual({ account: 0, validityMs: 30 });
    for (const v of renewed(await stampedRun({ watchdog: true }))) expect(v).toEqual({ account: 0 });
  });

  it("says of each step's invoke, and only of those, that its call starts next (a client process stamps it again after its write-ahead)", async () => {
    const ops = await stampedRun({ watchdog: true });
    const flagged = new Set(ops.filter((o) => o.beforeCall).map(({ op }) => `${op.type} ${op.f}`));
    expect([...flagged].sort()).toEqual([
      'invoke acquire',
      'invoke read',
      'invoke release',
      'invoke renew',
      'invoke write',
    ]);
    expect(ops.filter((o) => o.op.type === 'invoke' && !o.beforeCall)).toEqual([]);
  });

  it('a call that throws before returning a promise is an info with its invoke first, at the same stamp', async () => {
    const ops = await stampedRun({ watchdog: false, throwSync: true });
    const firstTwo = ops.slice(0, 2).map(({ op }) => [op.type, op.f, 'error' in op ? op.error : undefined]);
    expect(firstTwo).toEqual([
      ['invoke', 'acquire', undefined],
      ['info', 'acquire', 'thrown before any promise'],
    ]);
    expect(ops[1].atMs).toBe(ops[0].atMs + EMIT_MS);
  });

  it('the invoke is sent before the call starts: a process that dies inside the call has left its invoke', async () => {
    // What the broken-plugins fixture exits-in-acquire does (process.exit inside acquire): at that moment the
    // history must already hold the invoke, or an op that may have taken effect is missing from it.
    const seen: boolean[] = [];
    const ops = await stampedRun({
      watchdog: false,
      onAcquire: (emitted) => seen.push(emitted.some(({ op }) => op.type === 'invoke' && op.f === 'acquire')),
    });
    expect(ops.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every(Boolean)).toBe(true);
  });
});

describe('a library\'s own "still held?" check before the write (LockClient.stillHeld)', () => {
  /** Iterations on a virtual clock against a lock whose `stillHeld` answers from `heldAnswers`, one per iteration. */
  async function run(heldAnswers: boolean[] | null) {
    const time = new VirtualTime();
    const call = <T>(v: T) => time.sleep(1).then(() => v);
    const writes: number[] = [];
    const asked: boolean[] = [];
    const lock: LockClient = {
      acquire: () => call({ key: 'account-0', attempts: 1 }),
      release: () => call(true),
      close: async () => {},
      ...(heldAnswers
        ? {
            stillHeld: () => {
              const answer = heldAnswers[asked.length % heldAnswers.length];
              asked.push(answer);
              return answer;
            },
          }
        : {}),
    };
    const resource: BankResource = {
      read: (account) => call({ account, balance: 1000, version: 0, lastWriteId: 0 }),
      write: (w) => {
        writes.push(w.account);
        return call({ ok: true as const, writeId: writes.length });
      },
      close: async () => {},
    };
    const ops: OpInput[] = [];
    let done = false;
    const loop = runClientLoop({
      spec: {
        slot: 0,
        concurrency: 1,
        ctx: { redis: [], etcd: [], zookeeper: '', ttlMs: 30, acquireTimeoutMs: 100, client: 0, seed: 1 },
        mode: 'plain',
        thinkMs: 5,
        accounts: 1,
        watchdog: false,
        seed: 1,
        stepTimeoutMs: 1000,
      },
      strategy: { connect: async () => lock },
      connectResource: async () => resource,
      clock: time.clientClock(() => 0),
      emit: (op) => void ops.push(op),
      log: () => {},
      stopping: () => ops.filter((o) => o.f === 'release' && o.type === 'ok').length >= 4,
    }).finally(() => (done = true));
    await time.run(() => done);
    await loop;
    return { ops, writes, asked };
  }

  it('false: the write is not sent; it is a fail with error lock-lost, and the lock is still released', async () => {
    const { ops, writes, asked } = await run([true, false]);
    expect(asked.slice(0, 4)).toEqual([true, false, true, false]);
    expect(writes).toHaveLength(2);
    const completions = ops.filter((o) => o.f === 'write' && o.type !== 'invoke').map((o) => [o.type, o.error]);
    expect(completions).toEqual([
      ['ok', undefined],
      ['fail', 'lock-lost'],
      ['ok', undefined],
      ['fail', 'lock-lost'],
    ]);
    expect(ops.filter((o) => o.f === 'release' && o.type === 'ok')).toHaveLength(4);
  });

  it('a lock client without `stillHeld` writes every time', async () => {
    const { ops, writes } = await run(null);
    expect(writes).toHaveLength(4);
    expect(ops.filter((o) => o.f === 'write' && o.type === 'fail')).toEqual([]);
  });
});

describe('a lock library that ends the client process while it thinks (ClientSession.abandonSection)', () => {
  it('records the write it will never send as a fail, lock-lost, with the value it would have written; false outside a section', async () => {
    const time = new VirtualTime();
    const call = <T>(v: T) => time.sleep(1).then(() => v);
    const writes: unknown[] = [];
    const lock: LockClient = {
      acquire: () => call({ key: 'account-0', token: '9', attempts: 1 }),
      release: () => call(true),
      close: async () => {},
    };
    const resource: BankResource = {
      read: (account) => call({ account, balance: 500, version: 4, lastWriteId: 7 }),
      write: (w) => {
        writes.push(w);
        return call({ ok: true as const, writeId: 8 });
      },
      close: async () => {},
    };
    const ops: OpInput[] = [];
    let abandon: () => boolean = () => false;
    const answers: boolean[] = [];
    let stop = false;
    const clock = time.clientClock(() => 0);
    let done = false;
    const loop = runClientLoop({
      spec: {
        slot: 0,
        concurrency: 1,
        ctx: { redis: [], etcd: [], zookeeper: '', ttlMs: 30, acquireTimeoutMs: 100, client: 0, seed: 1 },
        mode: 'plain',
        thinkMs: 20,
        accounts: 1,
        watchdog: false,
        seed: 1,
        stepTimeoutMs: 1000,
      },
      strategy: { connect: async () => lock },
      connectResource: async () => resource,
      clock,
      emit: (op) => {
        ops.push(op);
        if (op.f === 'acquire' && op.type === 'ok') answers.push(abandon()); // inside the section, before its read
        if (op.f === 'read' && op.type === 'ok' && !stop)
          clock.setTimer(10, () => {
            answers.push(abandon()); // halfway through the think
            stop = true;
          });
      },
      log: () => {},
      stopping: () => stop,
      onSection: (fn) => (abandon = fn),
    }).finally(() => (done = true));
    await time.run(() => done);
    await loop;
    expect(answers).toEqual([false, true]);
    expect(writes).toEqual([]);
    const w = ops.filter((o) => o.f === 'write');
    expect(w.map((o) => [o.type, o.error])).toEqual([
      ['invoke', undefined],
      ['fail', 'lock-lost'],
    ]);
    expect(w[1].value).toMatchObject({ account: 0, from: 500, token: '9', basedOn: 7, version: 4 });
  });
});
