import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * reply-loss-etcd-release on a real 3-member etcd, scripted: A's own proxies are armed inside its section, the answer
 * to its release Txn (which deleted its key) is dropped and the connection reset, and the key is read on a member
 * right after the drop. etcd3 retries the Txn; its compare on A's create revision then fails, and A hears "not
 * released" for a release that took effect. The 10-shot measurement is a command in docs/faults.md.
 */

describe('reply-loss-etcd-release', () => {
  it("--lock=etcd, scripted: A's release is committed (its key gone) but its answer lost; A reports it not released", async () => {
    const run = await scriptedRun(
      {
        name: 'reply-loss-etcd-release',
        steps: [
          'A acquire',
          'A read',
          'reply-loss-etcd-release A',
          'A write',
          'A release',
          'heal reply-loss-etcd-release A',
          'B acquire',
          'B read',
          'B write',
          'B release',
        ],
      },
      ['--lock=etcd'],
    );
    const end = run.faults.find((o) => o.f === 'reply-loss-etcd-release' && o.value.phase === 'end')!;
    const p = end.value.params as { droppedOn: string[]; key?: string; revision?: string; revisionAfter?: string };
    expect(p.droppedOn.length, run.summary).toBe(1);
    expect(p.key).toBe('fencepost/lock/account-0');
    const granted = run.ops.find((o) => o.process === 0 && o.f === 'acquire' && o.type === 'ok')!;
    expect(p.revision).toBe(String((granted.value as { token?: unknown }).token));
    expect(p.revisionAfter, JSON.stringify(p)).toBeUndefined();
    const [shot] = faultHits(run.ops)['reply-loss-etcd-release'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done']);
    expect(
      run.ops.some((o) => o.process === 1 && o.f === 'acquire' && o.type === 'ok'),
      run.summary,
    ).toBe(true);
    expect(run.leftovers).toEqual([]);
  });
});
