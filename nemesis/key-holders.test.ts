import { describe, expect, it } from 'vitest';
import type { RedisServer } from '../cluster/node.ts';
import type { CriticalSection } from './critical-sections.ts';
import type { FaultContext } from './fault.ts';
import { nextKeyHolders, skipReason, victimsOf } from './key-holders.ts';

/** Which of the nodes holding a key a fault strikes: as many as break the lock, or what a script named. */
describe('victimsOf', () => {
  const five = [0, 1, 2, 3, 4].map((i) => ({ name: `redis[${i}]` }));
  const names = (ns: { name: string }[] | null) => ns?.map((n) => n.name) ?? null;
  const first = () => 0;

  it('a free run strikes `needed` of them, at random; none when nothing need break', () => {
    expect(victimsOf(five, 3, undefined, first)).toHaveLength(3);
    expect(victimsOf(five, 0, undefined, first)).toBeNull();
  });

  it('a script strikes every node it named that holds the key, even fewer than break a majority', () => {
    expect(names(victimsOf(five, 3, new Set(['redis[0]', 'redis[1]']), first))).toEqual(['redis[0]', 'redis[1]']);
    expect(names(victimsOf(five, 3, new Set(['redis[0]', 'redis[1]', 'redis[2]', 'redis[3]']), first))).toEqual([
      'redis[0]',
      'redis[1]',
      'redis[2]',
      'redis[3]',
    ]);
    // Named nodes without the key are not struck; none of them holding it is nothing to strike.
    expect(names(victimsOf(five.slice(2), 2, new Set(['redis[1]', 'redis[2]']), first))).toEqual(['redis[2]']);
    expect(victimsOf(five.slice(2), 2, new Set(['redis[0]']), first)).toBeNull();
  });
});

describe('nextKeyHolders', () => {
  const node = { name: 'r0' } as RedisServer;
  const section: CriticalSection = { slot: 0, process: 0, account: 0, readIndex: 3, readTime: 3e6, acquireIndex: 1 };
  /** One section (a script's client has only its own), and a probe answering in turn from `answers`. */
  function ctxWith(answers: { holds: boolean; answered: boolean }[]) {
    let sections = [section];
    const asked: number[] = [];
    const ctx = {
      aim: new AbortController().signal,
      only: undefined,
      random: () => 0,
      clients: { clients: [{ paused: false }] },
      sections: { next: async () => sections.shift() ?? null },
      redisKeys: {
        holding: async () => {
          const a = answers[Math.min(asked.length, answers.length - 1)];
          asked.push(asked.length);
          return {
            nodes: a.holds ? [node] : [],
            keys: a.holds ? ['lock:account-0'] : [],
            keysOn: a.holds ? { r0: ['lock:account-0'] } : {},
            valuesOn: {},
            unanswered: a.answered ? [] : [node],
          };
        },
      },
    } as unknown as FaultContext;
    return { ctx, asked, reset: () => (sections = []) };
  }

  it('asks again about the same section while a node did not answer (a probe past its timeout under load)', async () => {
    // Red before: the timed-out probe read as "no key", the one section was skipped and the strike found nothing.
    const { ctx, asked } = ctxWith([
      { holds: false, answered: false },
      { holds: true, answered: true },
    ]);
    const { found, skipped } = await nextKeyHolders(ctx, [node], performance.now() + 2000);
    expect(found?.victims.map((v) => v.name)).toEqual(['r0']);
    expect(skipped).toBe(0);
    expect(asked).toHaveLength(2);
  });

  it('a node that answered without the key is not asked again: the section is skipped', async () => {
    const { ctx, asked } = ctxWith([{ holds: false, answered: true }]);
    const { found, skipped } = await nextKeyHolders(ctx, [node], performance.now() + 2000);
    expect(found).toBeNull();
    expect(skipped).toBe(1);
    expect(asked).toHaveLength(1);
  });

  it('keeps asking past five tries while the deadline allows (a node slow for longer than 250 ms under load)', async () => {
    // Red before: five tries 50 ms apart, then the one section skipped although the node held the key.
    const answers = [...Array(8).fill({ holds: false, answered: false }), { holds: true, answered: true }];
    const { ctx, asked } = ctxWith(answers);
    const { found, skipped } = await nextKeyHolders(ctx, [node], performance.now() + 5000);
    expect(found?.victims.map((v) => v.name)).toEqual(['r0']);
    expect(skipped).toBe(0);
    expect(asked).toHaveLength(9);
  });

  it('a node that never answers is asked until the deadline, then the section is skipped, saying so', async () => {
    const { ctx, asked } = ctxWith([{ holds: false, answered: false }]);
    const { found, skipped, lastSkip } = await nextKeyHolders(ctx, [node], performance.now() + 300);
    expect(found).toBeNull();
    expect(skipped).toBe(1);
    expect(asked.length).toBeGreaterThan(1);
    expect(asked.length).toBeLessThanOrEqual(7);
    expect(lastSkip).toBe("p0's key of account 0 on no node of 1; r0 did not answer: nothing to break");
  });
});

describe('skipReason', () => {
  const n = (i: number) => ({ name: `redis[${i}]` });
  const section = { process: 0, account: 0 };
  it('names where the key was and which named nodes lacked it', () => {
    expect(
      skipReason(section, { nodes: [n(2), n(3), n(4)], unanswered: [] }, 5, 1, new Set(['redis[0]', 'redis[1]'])),
    ).toBe("p0's key of account 0 on redis[2], redis[3], redis[4] of 5: none of the named redis[0], redis[1] held it");
    expect(skipReason(section, { nodes: [], unanswered: [n(0)] }, 5, 0, undefined)).toBe(
      "p0's key of account 0 on no node of 5; redis[0] did not answer: nothing to break",
    );
  });
});
