import { describe, expect, it } from 'vitest';
import type { OpInput } from '../history/op.ts';
import { runClientLoop } from './client-loop.ts';
import type { LockStrategy } from './strategy.ts';

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
      // A loop that spins in microtasks never lets this timer fire: the test would time out.
      await new Promise((r) => setTimeout(r, 500));
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
