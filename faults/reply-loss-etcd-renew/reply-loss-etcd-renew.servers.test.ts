import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * reply-loss-etcd-renew on a real 3-member etcd, scripted with a 6 s TTL (a keep-alive every 2 s): from A's next section
 * its own proxies drop the answer to its next keep-alive that etcd answered alive, then reset the connection; the
 * lease is read on a member right after the drop. The 10-shot measurement is a command in docs/faults.md.
 */

describe('reply-loss-etcd-renew', () => {
  it("--lock=etcd --ttl=6000, scripted: A's keep-alive is committed (its lease's TTL back at 6 s) but its answer lost", async () => {
    const run = await scriptedRun(
      {
        name: 'reply-loss-etcd-renew',
        steps: [
          'start reply-loss-etcd-renew A',
          'A acquire',
          'A read',
          'wait reply-loss-etcd-renew A',
          'heal reply-loss-etcd-renew A',
          'A write',
          'A release',
        ],
      },
      ['--lock=etcd', '--ttl=6000'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const end = run.faults.find((o) => o.f === 'reply-loss-etcd-renew' && o.value.phase === 'end')!;
    const p = end.value.params as { droppedOn: string[]; answer?: string; ttlAfterS?: number; grantedTtlS?: number };
    expect(p.droppedOn.length, run.summary).toBe(1);
    expect(p.answer).toBe('alive TTL 6');
    expect(p.grantedTtlS).toBe(6);
    expect(p.ttlAfterS).toBeGreaterThanOrEqual(5);
    const [shot] = faultHits(run.ops)['reply-loss-etcd-renew'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done']);
    expect(run.leftovers).toEqual([]);
  });
});
