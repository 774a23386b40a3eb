import { beforeAll, describe, expect, it } from 'vitest';
import { runNemesis, starts, type NemesisRun } from '../../test/support/nemesis-test-kit.ts';
import { netLeft } from '../../test/support/server-net-left.ts';
import { serverNetMissing } from './server-net.ts';

function endsOf(run: NemesisRun, f: string) {
  return run.faults.filter((o) => o.f === f && o.value.phase === 'end').map((o) => o.value.params ?? {});
}

/**
 * Server↔server partitions on real servers, one grudge per lock's ensemble: the drops stop the members' peer traffic
 * (the minority loses its leader, the majority elects one, the replica stops hearing the primary), the clients' links
 * stay, and the run's table and cgroups are gone after the run. The other ways out (a partition longer than the run,
 * Ctrl-C, kill -9 + cleanup) are server-partition-exits.servers.test.ts.
 *
 * Each free run takes one shot (--shots=1) and ends soon after it: the partition is the subject, not the schedule. Two
 * clients, not five: what is asserted is between the servers, and each client is a Node process to start.
 */
// Root only, like every fault that changes the machine's network (the global setup installs nftables as root). As root
// a missing piece is a failure that names it, never a quiet skip.
const missing = serverNetMissing();
describe.skipIf(missing?.startsWith('server partitions need root') ?? false)('server partitions', () => {
  beforeAll(() => {
    if (missing) throw new Error(missing);
  });

  it('etcd isolate-leader: the majority elects another leader while the old one is cut off; nothing left after', async () => {
    const run = await runNemesis([
      '--lock=etcd',
      '--nemesis=isolate-leader',
      '--pause=3000',
      '--nemesis-interval=1000',
      '--shots=1',
      '--concurrency=2',
      '--time-limit=5',
    ]);
    const [start] = starts(run, 'isolate-leader');
    const p = start.value.params as { leader: string; sides: { members: string[] }[] };
    expect(p.sides[0].members).toEqual([p.leader]);
    expect(p.sides[1].members).toHaveLength(2);
    const [end] = endsOf(run, 'isolate-leader');
    expect(end.totalHeldBytes as number, run.summary).toBeGreaterThan(0);
    // A leader change observed: the majority names a leader other than the isolated one before the heal.
    const views = end.viewsDuring as Record<string, string>;
    for (const m of p.sides[1].members) expect(views[m], run.summary).toMatch(/^leader etcd\[\d\]$/);
    expect(views[p.sides[1].members[0]]).not.toBe(`leader ${p.leader}`);
    expect(run.outcome.results.faultHits['isolate-leader'].hit, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
    expect(netLeft(run.outcome.runDir)).toEqual([]);
  });

  it('ZooKeeper majority-minority: the minority stops serving, the majority has a leader; nothing left after', async () => {
    const run = await runNemesis([
      '--lock=zookeeper',
      '--nemesis=majority-minority',
      '--pause=4000',
      '--nemesis-interval=1000',
      '--shots=1',
      '--concurrency=2',
      '--time-limit=6',
    ]);
    const [start] = starts(run, 'majority-minority');
    const p = start.value.params as { sides: { members: string[] }[] };
    const [majority, minority] = p.sides.map((s) => s.members);
    expect(majority).toHaveLength(2);
    expect(minority).toHaveLength(1);
    const [end] = endsOf(run, 'majority-minority');
    expect(end.totalHeldBytes as number, run.summary).toBeGreaterThan(0);
    const views = end.viewsDuring as Record<string, string>;
    expect(views[minority[0]], run.summary).toBe('not serving');
    expect(majority.map((m) => views[m]).sort(), run.summary).toEqual(['follower', 'leader']);
    expect(run.leftovers).toEqual([]);
    expect(netLeft(run.outcome.runDir)).toEqual([]);
  });

  it("Redis isolate-leader: the replica's replication link to the primary holds bytes; nothing left after", async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--nemesis=isolate-leader',
      '--pause=2000',
      '--nemesis-interval=1000',
      '--shots=1',
      '--concurrency=2',
      '--time-limit=4',
    ]);
    const [start] = starts(run, 'isolate-leader');
    expect((start.value.params as { cuts: string[] }).cuts).toEqual(['redis-primary ⇹ redis-replica']);
    const [end] = endsOf(run, 'isolate-leader');
    // The replica acknowledges its offset every second (REPLCONF ACK): those bytes were held.
    expect(end.heldBytes, run.summary).toHaveProperty(['redis-replica -> redis-primary']);
    expect(run.outcome.results.faultHits['isolate-leader'].hit, run.summary).toBeGreaterThan(0);
    expect(netLeft(run.outcome.runDir)).toEqual([]);
  });

  it('etcd with --etcd-nodes=5, majorities-ring: each member cut from the two across the ring', async () => {
    const run = await runNemesis([
      '--lock=etcd',
      '--etcd-nodes=5',
      '--nemesis=majorities-ring',
      '--pause=1000',
      '--nemesis-interval=1000',
      '--shots=1',
      '--concurrency=2',
      '--time-limit=3',
    ]);
    expect(run.test.nodes.filter((n) => n.name.startsWith('etcd['))).toHaveLength(5);
    const [start] = starts(run, 'majorities-ring');
    expect((start.value.params as { cuts: string[] }).cuts).toHaveLength(5);
    const [end] = endsOf(run, 'majorities-ring');
    expect(end.totalHeldBytes as number, run.summary).toBeGreaterThan(0);
    expect(netLeft(run.outcome.runDir)).toEqual([]);
  });
});
