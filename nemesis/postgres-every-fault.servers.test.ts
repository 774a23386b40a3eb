import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { runNemesis } from '../test/support/nemesis-test-kit.ts';
import { EXECUTORS } from './fault-registry.ts';

describe('--lock=postgres under every fault', () => {
  // Was "whatever applies is injected, the rest is said to be n/a" (restart-empty and failover skipped with a log
  // line): a fault that cannot act on the lock is now refused before anything starts, and every fault of a run
  // must show it acted for the run to be VALID.
  const servers = { redis: 0, etcd: 0, zk: 0 };
  const refused = FAULT_NAMES.filter((f) => EXECUTORS[f].refusal(servers, 'postgres') !== null);
  const applies = FAULT_NAMES.filter((f) => !refused.includes(f));

  it('refuses the faults that cannot reach Postgres (no Redis, no ensemble to split, no probe or framing yet) before anything starts', async () => {
    // The server partitions split an etcd or ZooKeeper ensemble or a Redis pair: a lone Postgres has none.
    expect(refused).toEqual([
      'kill-session',
      'restart-empty',
      'leader-churn',
      // clock-rate proves its shots with a Redis probe key; the reply-loss faults aim at Redis commands or a
      // ZooKeeper create.
      'clock-rate',
      // clock-rate-client's story is a late watchdog renewal; this lock takes no --watchdog.
      'clock-rate-client',
      'failover',
      'reply-loss',
      'reply-loss-acquire',
      'reply-loss-renew',
      'reply-loss-create',
      'isolate-leader',
      'majority-minority',
      'bridge',
      'majorities-ring',
    ]);
    await expect(runNemesis(['--lock=postgres', `--nemesis=${FAULT_NAMES.join(',')}`])).rejects.toThrow(
      /--nemesis=kill-session cannot act on --lock=postgres: --lock=postgres holds no lock in a Postgres session/,
    );
  });

  it('is its own fence: no lost update, and every fault that applies acted (VALID on it)', async () => {
    // --pause=1000 ≥ --ttl=500: a pause or a held write shorter than the TTL would be a miss. Ten faults share the
    // run, and each needs one whole story: in 20 s with the default think, clock once fired a single shot whose
    // rival read only after the holder's write (CI, seed 471435665). 30 s gives each fault more shots, and a 300 ms
    // section more room for a rival's read inside it.
    const run = await runNemesis([
      '--lock=postgres',
      `--nemesis=${applies.join(',')}`,
      '--ttl=500',
      '--pause=1000',
      '--think=300',
      '--nemesis-interval=300',
      '--time-limit=30',
    ]);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    for (const f of applies) expect(run.outcome.results.faultHits[f]?.hit, `${f}: ${run.summary}`).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    // Every start has its end: teardown left nothing faulted.
    expect(run.outcome.results.faults.every((f) => f.end !== null)).toBe(true);
    expect(run.leftovers).toEqual([]);
  });
});
