import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { promiseExpectation, promiseMatches, promiseNote } from './promise-expectation.ts';

const redlock = { needs: ['redis'] };
const etcd = { needs: ['etcd'] };
const postgres = { needs: [] };
const broke = (n: number) => ({ broken: n, outlived: 0, unknown: 0, known: true });

describe('promiseExpectation', () => {
  it('expects every lock to keep its promise with no fault and under faults on its clients only', () => {
    expect(promiseExpectation(redlock, []).expect).toBe('kept');
    expect(promiseExpectation(redlock, ['pause-holder']).expect).toBe('kept');
    expect(promiseExpectation(redlock, ['delay-write']).expect).toBe('kept');
    expect(promiseExpectation(redlock, ['pause-node']).expect).toBe('kept');
  });

  it('takes which faults leave the servers their leases from the faults themselves', () => {
    const kept = FAULT_NAMES.filter((f) => promiseExpectation(redlock, [f]).expect === 'kept');
    expect(kept).toEqual([
      'pause-holder',
      'kill-holder',
      'kill-session',
      'pause-client',
      'pause-node',
      'partition',
      'latency',
      'delay-write',
      // A reply lost on the way back: the server acted and keeps (or dropped) the lease as asked.
      'reply-loss',
      'reply-loss-acquire',
      'reply-loss-renew',
      'reply-loss-create',
      'reply-loss-delete',
      'reply-loss-pg-lock',
      'reply-loss-pg-unlock',
      'reply-loss-etcd-acquire',
      'reply-loss-etcd-renew',
      'reply-loss-etcd-release',
      // A request held in flight, then delivered: the server's leases run as ever.
      'hold-request',
      // Replies held, or connections reset, on the way to one client: the server keeps its leases as ever.
      'one-way',
      'reset',
    ]);
  });

  it('lets a Redis lock break its promise when the fault takes its keys or its clock', () => {
    for (const f of ['restart-empty', 'clock', 'failover', 'kill'] as const)
      expect(promiseExpectation(redlock, [f])).toMatchObject({
        expect: 'may-break',
        reason: expect.stringContaining(f),
      });
  });

  it("takes a lock's own word where its logic can break the promise the rule would keep", () => {
    const own = { expect: 'may-break', reason: 'its unlock has no owner check' } as const;
    expect(promiseExpectation(postgres, ['pause-holder'], own)).toEqual(own);
    expect(promiseMatches(promiseExpectation(postgres, ['pause-holder'], own), broke(3))).toBe(true);
    expect(promiseMatches(promiseExpectation(postgres, ['pause-holder']), broke(3))).toBe(false);
  });

  it('expects consensus and database locks to keep it under every fault', () => {
    for (const f of ['kill', 'isolate-leader', 'leader-churn', 'clock'] as const) {
      expect(promiseExpectation(etcd, [f]).expect).toBe('kept');
      expect(promiseExpectation(postgres, [f]).expect).toBe('kept');
    }
  });
});

describe('promiseMatches', () => {
  const kept = promiseExpectation(etcd, ['pause-holder']);
  const mayBreak = promiseExpectation(redlock, ['restart-empty']);

  it('fails a kept cell on its first broken promise, and says why', () => {
    expect(promiseMatches(kept, broke(0))).toBe(true);
    expect(promiseMatches(kept, broke(1))).toBe(false);
    expect(promiseNote(kept, broke(2))).toBe(
      'broke its promise 2× where the oracle expects it kept (pause-holder acts on the clients only: the servers keep every lease)',
    );
    expect(promiseNote(kept, broke(0))).toBeUndefined();
  });

  it('never fails a may-break cell, nor one whose runs measured no promise', () => {
    expect(promiseMatches(mayBreak, broke(4))).toBe(true);
    expect(promiseMatches(kept, undefined)).toBe(true);
  });
});
