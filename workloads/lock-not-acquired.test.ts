import { describe, expect, it } from 'vitest';
import type { OpInput } from '../history/op.ts';
import { runClientLoop, type BankResource } from './client-loop.ts';
import { isLockNotAcquired, LockNotAcquired, type LockStrategy } from '../locks/strategy.ts';

/**
 * The client loop is the one place an acquire's error becomes `fail` (definitely not acquired) or `info` (unknown).
 * It asks the brand, not `instanceof`: a plugin resolving `fencepost` to another installed copy throws that copy's
 * class, which only shares `Symbol.for('fencepost.LockNotAcquired')` with ours.
 */

/** What another copy of the package's class looks like from here: a different class that carries the brand. */
const BRAND: unique symbol = Symbol.for('fencepost.LockNotAcquired');
class ForeignLockNotAcquired extends Error {
  readonly [BRAND] = true;
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'LockNotAcquired';
  }
}

/** Runs the real loop until its first acquire completes; returns that completion. */
async function firstAcquireCompletion(error: unknown): Promise<OpInput> {
  const ops: OpInput[] = [];
  const strategy: Pick<LockStrategy, 'connect'> = {
    async connect() {
      return {
        acquire: async () => Promise.reject(error),
        release: async () => true,
        close: async () => {},
      };
    },
  };
  const resource: BankResource = {
    read: async () => ({ balance: 0, version: 0, lastWriteId: null }) as never,
    write: async () => ({ ok: true, writeId: 1 }) as never,
    close: async () => {},
  };
  const done = () => ops.some((o) => o.f === 'acquire' && o.type !== 'invoke');
  await runClientLoop({
    spec: {
      slot: 0,
      concurrency: 1,
      ctx: { redis: [], etcd: [], zookeeper: '', ttlMs: 1000, acquireTimeoutMs: 4000, client: 0, seed: 1 },
      mode: 'unfenced',
      thinkMs: 0,
      accounts: 1,
      watchdog: false,
      seed: 1,
      stepTimeoutMs: 5000,
    } as never,
    strategy,
    connectResource: async () => resource,
    clock: {
      now: () => process.hrtime.bigint(),
      setTimer: (ms, fn) => {
        const t = setTimeout(fn, ms);
        return () => clearTimeout(t);
      },
    },
    emit: (op) => ops.push(op),
    log: () => {},
    stopping: done,
  });
  return ops.find((o) => o.f === 'acquire' && o.type !== 'invoke')!;
}

describe('LockNotAcquired is recognised by its brand', () => {
  it('our own class is a `fail` with error not-acquired', async () => {
    const op = await firstAcquireCompletion(new LockNotAcquired('busy', 3));
    expect(op).toMatchObject({ type: 'fail', f: 'acquire', error: 'not-acquired' });
  });

  it('a separately constructed class carrying the brand (another copy of the package) is a `fail` too', async () => {
    const foreign = new ForeignLockNotAcquired('busy', 3);
    const op = await firstAcquireCompletion(foreign);
    expect(op).toMatchObject({ type: 'fail', f: 'acquire', error: 'not-acquired' });
  });

  it('a plain Error, even one named LockNotAcquired, is `info` (unknown): the name is not the brand', async () => {
    expect(await firstAcquireCompletion(new Error('connection reset'))).toMatchObject({
      type: 'info',
      error: 'connection reset',
    });
    const impostor = Object.assign(new Error('busy'), { name: 'LockNotAcquired' });
    expect(await firstAcquireCompletion(impostor)).toMatchObject({ type: 'info', error: 'busy' });
  });

  it('isLockNotAcquired and instanceof agree on the brand, across copies', () => {
    expect(isLockNotAcquired(new ForeignLockNotAcquired('x', 1))).toBe(true);
    expect(new ForeignLockNotAcquired('x', 1) instanceof LockNotAcquired).toBe(true);
    expect(isLockNotAcquired(new LockNotAcquired('x', 1))).toBe(true);
    expect(isLockNotAcquired(new Error('x'))).toBe(false);
    expect(isLockNotAcquired({ [Symbol.for('fencepost.LockNotAcquired')]: 'yes' })).toBe(false);
    expect(isLockNotAcquired(null)).toBe(false);
    expect(new Error('x') instanceof LockNotAcquired).toBe(false);
  });
});
