import { describe, expect, it } from 'vitest';
import { cleanupWouldDo, planCleanup } from './cleanup-plan.ts';
import type { OwnedKeys } from './owned-keys.ts';

const run = (id: string, host = 'ci-7', pid = 100): OwnedKeys & { from: string } => ({
  format: 1,
  id,
  target: 't',
  keyPrefix: 'fp-ci/',
  namespace: `fp-ci/${id}/`,
  keys: [`fp-ci/${id}/lock:account-0`],
  host,
  pid,
  pidStart: 1,
  startedAt: 1000,
  until: 5000,
  from: 'r0',
});
const DEAD = run('run-aaaa-000001', 'ci-7', 100);
const LIVE = run('run-bbbb-000002', 'ci-7', 200);
const HERE = { host: 'ci-7', now: 2000, alive: (pid: number) => pid === 200 };

/** What another team and two runs of ours left under fp-ci/, on a Redis and on etcd. */
const FOUND = {
  r0: [
    'fp-ci/run-aaaa-000001/lock:account-0',
    'fp-ci/run-aaaa-000001/lock:account-1',
    'fp-ci/fencepost-owned:run-aaaa-000001',
    'fp-ci/run-bbbb-000002/lock:account-0',
    'fp-ci/fencepost-owned:run-bbbb-000002',
    'fp-ci/billing:invoice-7',
    'fp-ci/run-cccc-000003/lock:account-0',
  ],
  etcd: ['fp-ci/run-aaaa-000001/lock/account-0', 'fp-ci/fencepost-owned:run-aaaa-000001'],
};

describe('what cleanup --target deletes, and what it lists and leaves (audit R1)', () => {
  it('deletes a dead run’s recorded keys, its record last; leaves a live run’s and every unrecorded key', () => {
    const plan = planCleanup('fp-ci/', [DEAD, LIVE], FOUND, HERE);
    expect(plan.remove).toEqual({
      r0: [
        'fp-ci/run-aaaa-000001/lock:account-0',
        'fp-ci/run-aaaa-000001/lock:account-1',
        'fp-ci/fencepost-owned:run-aaaa-000001',
      ],
      etcd: ['fp-ci/run-aaaa-000001/lock/account-0', 'fp-ci/fencepost-owned:run-aaaa-000001'],
    });
    expect(plan.live).toEqual({
      r0: ['fp-ci/fencepost-owned:run-bbbb-000002', 'fp-ci/run-bbbb-000002/lock:account-0'],
    });
    // A namespace no record names (its record lost, or someone else's look-alike) is not ours to delete.
    expect(plan.unrecorded).toEqual({ r0: ['fp-ci/billing:invoice-7', 'fp-ci/run-cccc-000003/lock:account-0'] });
    expect(cleanupWouldDo(plan, 't.json', 'fencepost')).toBe(
      "`fencepost cleanup --target=t.json` deletes the 5 key(s) that runs of ours recorded and whose harness is gone; 2 belong to a run that may still be going: wait for it; 2 no run of ours recorded (2 on r0 (fp-ci/billing:invoice-7, fp-ci/run-cccc-000003/lock:account-0)): they are not fencepost's unless you know otherwise — check them; cleanup lists them and leaves them (it deletes them only with --delete-unrecorded)",
    );
    expect(plan.runs).toEqual([
      { id: 'run-aaaa-000001', live: false, from: 'r0', keys: 5 },
      { id: 'run-bbbb-000002', live: true, from: 'r0', keys: 2 },
    ]);
  });

  it('with no record at all (the audit’s 50 keys of another team) it deletes nothing', () => {
    const found = { r0: Array.from({ length: 50 }, (_, i) => `team:billing:invoice:${i + 1}`) };
    const plan = planCleanup('team:', [], found, HERE);
    expect(plan.remove).toEqual({});
    expect(plan.unrecorded.r0).toHaveLength(50);
    expect(cleanupWouldDo(plan, 'team.json', 'fencepost')).toBe(
      "no key there was recorded by a run of ours that is gone, so `fencepost cleanup --target=team.json` deletes nothing; 50 no run of ours recorded (50 on r0 (team:billing:invoice:1, team:billing:invoice:10, team:billing:invoice:11, …)): they are not fencepost's unless you know otherwise — check them; cleanup lists them and leaves them (it deletes them only with --delete-unrecorded)",
    );
  });

  it('--delete-unrecorded adds the unrecorded keys, never a live run’s, records still last', () => {
    const plan = planCleanup('fp-ci/', [DEAD, LIVE], FOUND, HERE, true);
    expect(plan.remove.r0).toEqual([
      'fp-ci/run-aaaa-000001/lock:account-0',
      'fp-ci/run-aaaa-000001/lock:account-1',
      'fp-ci/billing:invoice-7',
      'fp-ci/run-cccc-000003/lock:account-0',
      'fp-ci/fencepost-owned:run-aaaa-000001',
    ]);
    expect(plan.live.r0).toHaveLength(2);
  });

  it('a record from another machine is live until its bound, then dead', () => {
    const far = run('run-dddd-000004', 'laptop', 100);
    const found = { r0: ['fp-ci/run-dddd-000004/lock:account-0'] };
    expect(planCleanup('fp-ci/', [far], found, { ...HERE, now: 4999 }).live).toEqual(found);
    expect(planCleanup('fp-ci/', [far], found, { ...HERE, now: 5000 }).remove).toEqual(found);
  });
});
