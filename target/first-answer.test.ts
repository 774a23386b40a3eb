import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ANSWER_TIMEOUT_MS, firstAnswer, REACH_TRY_MS } from './remote-node.ts';

/**
 * The check before a run that a target's server is up. It once asked one question with the fault-evidence bound
 * (400 ms): an etcd member whose password check took longer on a busy machine was reported as "did not answer" and
 * the run refused (CI, target-run.test.ts). A slow answer is an answer; only silence until the deadline is not.
 */
describe('firstAnswer', () => {
  it('a server answering slower than the fault-evidence bound is up', async () => {
    const slow = async () => sleep(ANSWER_TIMEOUT_MS + 300);
    expect(await firstAnswer(slow, 5000, REACH_TRY_MS)).toBe(true);
  });

  it('a server refusing twice, then answering, is up', async () => {
    let asked = 0;
    const flaky = async () => {
      asked++;
      if (asked < 3) throw new Error('connection refused');
      return 'PONG';
    };
    expect(await firstAnswer(flaky, 5000, 1000, 10)).toBe(true);
    expect(asked).toBe(3);
  });

  it('a server that never answers is down once the deadline passed, and not much later', async () => {
    const t0 = performance.now();
    const never = () => new Promise<never>(() => {});
    expect(await firstAnswer(never, 300, 100, 10)).toBe(false);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('each try is bounded by the time left, so a hung try never overruns the deadline by a whole try', async () => {
    const tries: number[] = [];
    const never = (ms: number) => {
      tries.push(ms);
      return new Promise<never>(() => {});
    };
    expect(await firstAnswer(never, 250, 1000, 10)).toBe(false);
    expect(tries[0]).toBeLessThanOrEqual(250);
  });
});
