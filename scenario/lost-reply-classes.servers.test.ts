import { describe, expect, it } from 'vitest';
import { lostReplyFindings } from './scenario-expect.ts';
import { scriptedRun } from '../test/support/scripted-run.ts';

/**
 * Issue 46's classes of lock under a lost reply, each a shipped scenario run once on real servers: the finding its
 * `expect` names, or its absence. The third, double-counting, is a gallery case (examples/broken/reentrant-resend.ts),
 * run with its twin by test/integration/broken-gallery-scripted.test.ts. `replay <scenario> --runs=10` is the 10/10.
 */
describe('the classes of lock under a lost reply, scripted', () => {
  it("self-blocking (scenarios/self-blocking.json, --lock=redis): A's granted SET NX unheard, an orphaned lock of about one TTL that B waits out", async () => {
    const run = await scriptedRun({ shipped: 'self-blocking' }, []);
    expect(run.record.followed, run.summary).toBe(true);
    const results = run.outcome.results;
    expect(lostReplyFindings(results), run.summary).toEqual(['orphaned-lock']);
    const [orphan] = results.checkers['lost-replies'].orphans ?? [];
    expect(orphan, run.summary).toMatchObject({ process: 0, account: 0, beyond: false });
    expect(orphan.durationMs).toBeGreaterThan(1_500);
    // A liveness finding: the lock stayed safe.
    expect(results.valid, run.summary).toBe(true);
    expect(run.leftovers).toEqual([]);
  });

  it.each([
    ['curator', 'Curator finds its protected node (_c_<guid>-lock-) again', /_c_[0-9a-f-]{36}-lock-\d{10}/],
    ['zookeeper', "fencepost's recipe finds its node by its per-client prefix", /c0-[0-9a-f]{12}-lock-\d{10}/],
  ])(
    "idempotent (scenarios/idempotent-create.json, --lock=%s): the create's reply lost, %s; nothing found",
    async (lock, _how, node) => {
      const run = await scriptedRun({ shipped: 'idempotent-create' }, [`--lock=${lock}`]);
      expect(run.record.followed, run.summary).toBe(true);
      const results = run.outcome.results;
      const [shot] = results.faultHits['reply-loss-create'].shots;
      expect(
        shot.story?.map((s) => `${s.id}:${s.status}`),
        shot.evidence,
      ).toEqual(['reply-dropped:done', 'committed:done', 'recovered:done']);
      expect(shot.evidence).toMatch(new RegExp(`${node.source}, the node the dropped create made, and no second$`));
      expect(lostReplyFindings(results), run.summary).toEqual([]);
      expect(results.valid, run.summary).toBe(true);
      expect(run.leftovers).toEqual([]);
    },
  );
});
