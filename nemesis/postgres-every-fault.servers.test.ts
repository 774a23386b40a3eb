import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { runNemesis } from '../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../test/support/scripted-run.ts';
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
      // clock-rate runs the server's clock, which this lock's version column never reads; the reply-loss faults aim at
      // Redis commands, a ZooKeeper create or delete, or an advisory lock's statements — and this lock takes none.
      'clock-rate',
      // clock-rate-client's story is a slowed holder outrunning its lease, clock-rate-waiters' a fast waiter ending it
      // early: this lock's is its version column, no lease.
      'clock-rate-client',
      'clock-rate-waiters',
      'failover',
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
      // hold-request names a request by its framing: RESP or ZooKeeper's packets, not Postgres's protocol yet.
      'hold-request',
      // one-way reads its hit as a renewal on Redis; reset resets Redis connections (a Postgres reset would end the
      // session and its lock: kill-session's story).
      'one-way',
      'reset',
      'isolate-leader',
      'majority-minority',
      'bridge',
      'majorities-ring',
    ]);
    await expect(runNemesis(['--lock=postgres', `--nemesis=${FAULT_NAMES.join(',')}`])).rejects.toThrow(
      /--nemesis=kill-session cannot act on --lock=postgres: --lock=postgres holds no lock in a Postgres session/,
    );
  });

  // One story per fault, in turn, each step gated on the history (the version column refuses the stale write of
  // each aimed story: held). Was a 30 s free run of all ten at once whose VALID needed every fault to land a whole
  // story by chance (CI, seed 471435665: clock's rival read only after the holder's write).
  const STORIES: Record<string, string> = {
    'pause-holder':
      'A acquire, A read, pause A, wait lease-expired A, B acquire, B read, B write, B release, resume A, A write, A release',
    'delay-write':
      'A acquire, A read, hold A, start A write, wait lease-expired A, B acquire, B read, B write, B release, deliver A, wait A write, A release',
    clock: 'A acquire, A read, clock +60s A, B acquire, B read, clock reset, A write, B write, A release, B release',
    // The faults on the traffic to Postgres hold or delay A's read, sent while they are in effect.
    partition: 'partition, A acquire, start A read, heal partition, wait A read, A write, A release',
    latency: 'latency, A acquire, A read, A write, A release, heal latency',
    'pause-node': 'pause-node, heal pause-node',
    'pause-client': 'pause-client, heal pause-client',
    'clock-strobe': 'clock-strobe, A acquire, A read, A write, A release, heal clock-strobe',
    // The clients' wall clocks stand still: Postgres's lock and the version check read neither.
    'clock-freeze-clients': 'clock-freeze-clients, A acquire, A read, A write, A release, heal clock-freeze-clients',
    // Next to last: a killed A takes no further step (its slot restarts as a new process).
    'kill-holder': 'A acquire, A read, kill A, B acquire, B read, B write, B release',
    // After every section: Postgres itself SIGKILLed (`kill` alone is the server fault), restarted with its data. Its
    // restart ends every client's connection, so no client step follows; the ledger is read afterwards.
    kill: 'kill',
  };

  it('is its own fence, scripted: one story per fault that applies — no lost update, each acted (VALID)', async () => {
    expect(Object.keys(STORIES).sort()).toEqual([...applies].sort());
    const run = await scriptedRun(
      { name: 'postgres-every-fault', steps: Object.values(STORIES).flatMap((story) => story.split(', ')) },
      ['--lock=postgres', '--ttl=500'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const r = run.outcome.results;
    expect(r.lostUpdates, run.summary).toBe(0);
    // pause-holder's and delay-write's late writes and clock's second writer: refused by the version check.
    expect(r.staleWritesRejected, run.summary).toBe(3);
    for (const f of Object.keys(STORIES)) {
      const shot = r.faultHits[f]?.shots[0];
      expect(r.faultHits[f]?.hit, `${f}: ${run.summary}`).toBe(1);
      // A story told to its end: every step done, or held by the fence.
      if (shot.story)
        expect(
          shot.story.map((s) => s.status).filter((s) => s !== 'done' && s !== 'held'),
          f,
        ).toEqual([]);
    }
    expect(r.faultHits.kill.shots[0].evidence).toMatch(/^killed pg; it restarted with its data and answered a probe/);
    expect(r.valid, run.summary).toBe(true);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    // Every start has its end: teardown left nothing faulted.
    expect(r.faults.every((f) => f.end !== null)).toBe(true);
    expect(run.leftovers).toEqual([]);
  });
});
