import { describe, expect, it } from 'vitest';
import type { FaultContext } from '../../nemesis/fault.ts';
import { clientRoute } from '../../nemesis/client-routes.ts';
import { replyLossAcquire } from './inject.ts';

/**
 * A script heals the fault as soon as the client's step ended, which may come before the fault has read the server
 * after the drop: the heal then waits for that read, so the end record carries the evidence (before, it could end
 * with no value read: a hit judged a miss).
 */
describe('reply-loss-acquire healed right after its drop', () => {
  it('waits for the read of the key, and records the value the dropped SET wrote', async () => {
    const drops: object[] = [];
    const proxy = {
      droppedReplies: () => drops,
      dropNextReply: () => {},
      heal: () => {},
      counters: () => ({ connections: 1 }),
    };
    let answer!: (v: string) => void;
    const ac = new AbortController();
    const ctx = {
      clients: { clients: [{ slot: 0, process: 0, paused: false, exited: false }] },
      proxies: new Map([[clientRoute(0, 'redis[0]'), proxy]]),
      cluster: { redis: [{ name: 'redis[0]' }] },
      pair: null,
      slot: 0,
      signal: ac.signal,
      aim: ac.signal,
      random: () => 0,
      config: { lock: 'redis', ttlMs: 2000, storyWaitMs: 8000 },
      journal: { sinceOrigin: () => 1_000, onOp: () => () => {} },
      redisKeys: { valueOf: () => new Promise<string>((r) => (answer = r)), pttlOf: async () => 1_940 },
    } as unknown as FaultContext;
    const injection = (await replyLossAcquire.start(ctx))!;
    drops.push({ connection: 1, atMs: 0, request: { command: 'SET', detail: 'lock:account-0', value: 'v-1' } });
    const healed = injection.heal();
    // The read is answered only after the heal was called.
    await expect.poll(() => answer).toBeTypeOf('function');
    answer('v-1');
    const end = await healed;
    expect(end?.params).toMatchObject({
      droppedOn: ['redis[0]'],
      key: 'lock:account-0',
      sent: 'v-1',
      valuesAfter: { 'redis[0]': 'v-1' },
      pttlAfterMs: { 'redis[0]': 1_940 },
    });
  });
});
