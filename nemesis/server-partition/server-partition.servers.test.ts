import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_INTERRUPTED } from '../../common/shutdown.ts';
import { cleanup } from '../../harness/cleanup.ts';
import { processesUnder, testResultsDir } from '../../test/integration/processes.ts';
import { startCli } from '../../test/support/cli-run.ts';
import { eventually } from '../../test/support/eventually.ts';
import { runNemesis, starts, type NemesisRun } from '../../test/support/nemesis-test-kit.ts';
import { netName, serverNetMissing } from './server-net.ts';
import { cgroup2Mount } from '../../common/cgroup2.ts';
import { dataElsewhereOf } from '../../cluster/server-node.ts';

/** The run's nftables table and cgroup, if either still exists: what every way out must remove. */
function netLeft(runDir: string): string[] {
  const name = netName(runDir);
  const left: string[] = [];
  const tables = execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' });
  if (tables.split('\n').some((l) => l.trim() === `table inet ${name}`)) left.push(`table inet ${name}`);
  const mount = cgroup2Mount(fs.readFileSync('/proc/self/mounts', 'utf8'));
  if (mount && fs.existsSync(path.join(mount, name))) left.push(path.join(mount, name));
  return left;
}

function endsOf(run: NemesisRun, f: string) {
  return run.faults.filter((o) => o.f === f && o.value.phase === 'end').map((o) => o.value.params ?? {});
}

/** The CLI as a user runs it; `act` acts on the process once a line of its output matches `when`. */
async function cli(
  args: string[],
  when: RegExp,
  act: (pid: number) => void,
): Promise<{ code: number | null; stderr: string }> {
  const run = startCli(args);
  await run.line(when).then(
    () => act(run.pid),
    () => {}, // it ended without the line: nothing to act on, the assertions say why
  );
  return run.exit;
}

function onlyRunDir(results: string, lock: string): string {
  const dir = path.join(results, lock);
  const [run] = fs.readdirSync(dir).map((d) => path.join(dir, d));
  return run;
}

/**
 * Server↔server partitions on real servers: the drops stop the members' peer traffic (the minority loses its
 * leader, the majority elects one, the replica stops hearing the primary), the clients' links stay, and the
 * run's table and cgroups are gone after the run — on the normal path, after Ctrl-C mid-partition, and after
 * kill -9 + cleanup.
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

  it('a partition longer than the run (--pause past --time-limit) ends with the run, on time; nothing left after', async () => {
    // Issue 23's report: `--lock=zookeeper --nemesis=isolate-leader --pause=60000 --time-limit=120` ran past its
    // limit with the harness's event loop blocked. Bounded here: the run must end by itself, its last progress line
    // at the limit, the partition cut short by the end of the run and healed, within the limit + 45 s (boot,
    // clients' stop grace, checkers), or it is killed and the test fails.
    const results = testResultsDir('server-partition-longer-than-run');
    const limitS = 5;
    const boundMs = (limitS + 45) * 1000;
    const t0 = performance.now();
    let killer: NodeJS.Timeout | undefined;
    const r = await cli(
      [
        '--lock=zookeeper',
        '--nemesis=isolate-leader',
        '--pause=60000',
        `--time-limit=${limitS}`,
        '--concurrency=2',
        `--results=${results}`,
      ],
      /fencepost: --lock=zookeeper/,
      (pid) => (killer = setTimeout(() => process.kill(pid, 'SIGKILL'), boundMs - (performance.now() - t0))),
    );
    clearTimeout(killer);
    const wallMs = performance.now() - t0;
    expect(r.code, `killed after ${Math.round(wallMs)} ms:\n${r.stderr}`).not.toBeNull();
    expect([0, 1, 2], r.stderr).toContain(r.code);
    expect(wallMs).toBeLessThan(boundMs);
    expect(r.stderr).toContain(` ${limitS}/${limitS} s `);
    expect(r.stderr).toMatch(/isolate-leader: over after \d+ ms; held \d+ bytes/);
    const runDir = onlyRunDir(results, 'zookeeper');
    expect(netLeft(runDir)).toEqual([]);
    expect(processesUnder(results)).toEqual([]);
    fs.rmSync(results, { recursive: true, force: true });
  });

  it('Ctrl-C mid-partition: exit 130, the end recorded, table and cgroups gone', async () => {
    const results = testResultsDir('server-partition-sigint');
    const r = await cli(
      // --verbose: the live log prints the fault's raw start record, which the test waits for.
      [
        '--lock=etcd',
        '--nemesis=isolate-leader',
        '--pause=60000',
        '--time-limit=120',
        '--concurrency=2',
        '--verbose',
        `--results=${results}`,
      ],
      /isolate-leader start/,
      (pid) => process.kill(pid, 'SIGINT'),
    );
    expect(r.code, r.stderr).toBe(EXIT_INTERRUPTED);
    const runDir = onlyRunDir(results, 'etcd');
    expect(netLeft(runDir)).toEqual([]);
    const phases = fs
      .readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { process: unknown; value: { phase?: string } })
      .filter((o) => o.process === 'nemesis')
      .map((o) => o.value.phase);
    expect(phases).toEqual(['start', 'end']);
    fs.rmSync(results, { recursive: true, force: true });
  });

  it('kill -9 mid-partition: the table and cgroups stay until cleanup, which removes them and the servers', async () => {
    const results = testResultsDir('server-partition-kill9');
    const r = await cli(
      [
        '--lock=zookeeper',
        '--nemesis=isolate-leader',
        '--pause=60000',
        '--time-limit=120',
        '--concurrency=2',
        '--verbose',
        `--results=${results}`,
      ],
      /isolate-leader start/,
      (pid) => process.kill(pid, 'SIGKILL'),
    );
    expect(r.code, r.stderr).toBeNull();
    const runDir = onlyRunDir(results, 'zookeeper');
    const name = netName(runDir);
    expect(netLeft(runDir).length, 'kill -9 left nothing to clean up: the test would prove nothing').toBe(2);
    const pgData = dataElsewhereOf(path.join(runDir, 'nodes', 'pg'));
    const lines: string[] = [];
    // With --data: Postgres's data may live in /dev/shm, outside the results this test removes.
    await cleanup(results, (l) => lines.push(l), { data: true });
    expect(lines.join('\n')).toContain(`removed nftables table inet ${name} and cgroup`);
    if (pgData) expect(fs.existsSync(pgData)).toBe(false);
    expect(netLeft(runDir)).toEqual([]);
    // cleanup SIGKILLed the servers; the kernel reaps them a moment later.
    await eventually('the servers reaped', () => processesUnder(results).length === 0, 5_000).catch(() => {});
    expect(processesUnder(results)).toEqual([]);
    fs.rmSync(results, { recursive: true, force: true });
  });
});
