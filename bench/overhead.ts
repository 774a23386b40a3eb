import fs from 'node:fs';
import { benchArgs, namesOf } from './bench-args.ts';
import type { OptionSpec } from '../harness/option-table.ts';
import os from 'node:os';
import path from 'node:path';
import { typedRun } from '../harness/typed-run.ts';
import { provision } from '../cluster/provision.ts';
import { runTest } from '../harness/run.ts';
import { Shutdown } from '../common/shutdown.ts';
import { readRunHistory, readTest } from '../store/run-dir.ts';
import {
  harnessShareGoal,
  OVERHEAD_LOCKS,
  overheadFor,
  overheadGoal,
  type OverheadRow,
  steadyLatency,
} from './overhead-goal.ts';
import { measureLockFloor, printFloor, type LockFloor } from './lock-floor.ts';
import { ms } from './pair-timing.ts';
import { BENCH_TTL_MS } from './protocol-floors.ts';
import type { BenchOutcome, Goal } from './outcome.ts';

/**
 * `npm run bench -- overhead [--samples=2000] [--time-limit=15] [--locks=redis,redlock,…]`
 *
 * What the harness adds to what it measures, uncontended. For each lock in turn, on this machine:
 *
 * 1. Its floors, on a cluster of the lock's servers (the same binaries and configs a run boots, local backend) booted
 *    for it just before its run: `--samples` sequential acquire/release pairs of the bare operation the strategy is
 *    built on, straight to the server's port — ioredis `SET key v NX PX 2000` + compare-and-delete `EVAL` (one
 *    master, and the same on 5 masters in parallel, Redlock's floor); an etcd3 create-if-absent txn +
 *    compare-and-delete txn; a ZooKeeper EPHEMERAL_SEQUENTIAL create + delete; the run's own Postgres write
 *    (conditional UPDATE + ledger INSERT, one statement) as acquire and the read that precedes it as release — then
 *    the same through a TcpProxy of the harness (the difference is the proxy's own latency), then paced as a run's
 *    client is (timedInterleaved), op by op in turn with the strategy's own acquire called from this process
 *    (strategyPair: the lock's own code and client library, no harness). ZooKeeper's acquire is also taken apart per
 *    member (zkMemberParts).
 * 2. Its run: `runTest` with `--concurrency=1 --think=0 --nemesis=none --time-limit=<s>`; the latency quantiles of
 *    the run's history past its first third (steadyLatency: the floors are taken warm, and a run's servers and
 *    client process start cold — measured: zookeeper acquire p50 over a whole 5 s run 4.99 ms, over a 20 s run
 *    3.18 ms, the strategy alone on warm servers 2.7–2.8 ms); the whole run's p50 is kept beside it. The client
 *    stamps `invoke` just before it calls the strategy and `ok` right after the call returns, so what the harness
 *    adds there is the client's own work around the call (its write-ahead of the invoke: workloads/op-outbox.ts).
 *
 * Not the same server instance: runTest boots its own cluster. Goals: each lock's recorded acquire p50 ≤ 1.5 × its
 * paced floor's p50 (postgres has no lock: its write against the same statement), and ≤ 1.5 × the strategy alone
 * (what the harness adds to the lock's own cost). The back-to-back ratio is printed too.
 */

const OPTIONS = [
  { name: 'samples', kind: 'int', min: 10, default: 2000, help: "acquires timed for each lock's floor" },
  { name: 'time-limit', kind: 'int', value: 's', min: 3, default: 15, help: "each lock's run's --time-limit" },
  {
    name: 'locks',
    kind: 'string',
    value: 'lock,…',
    default: OVERHEAD_LOCKS.join(','),
    help: 'the locks measured',
    parse: namesOf('locks', OVERHEAD_LOCKS),
  },
] as const satisfies readonly OptionSpec[];

export async function run(args: string[]): Promise<BenchOutcome> {
  const o = benchArgs('overhead', args, OPTIONS);
  const samples = o.samples;
  const timeLimitS = o['time-limit'];
  const locks = o.locks;
  await provision(['redis', 'etcd', 'zk', 'pg']);
  const floors: Record<string, LockFloor> = {};
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-overhead-'));
  const rows: OverheadRow[] = [];
  try {
    for (const lock of locks) {
      // The floors of this lock, on a cluster of its own booted just before its run: on this shared VM the servers'
      // latency drifts minute to minute (etcd and ZooKeeper fsync every write), so measurements minutes apart are
      // not like for like.
      const f = (floors[lock] = await measureLockFloor(lock, samples));
      printFloor(lock, f);
      const config = typedRun({
        lock,
        concurrency: 1,
        thinkMs: 0,
        nemesis: [],
        timeLimitS,
        ttlMs: BENCH_TTL_MS,
        resultsDir: results,
      });
      const out = await runTest(config, new Shutdown(), () => {});
      // A lock that takes none (postgres) is timed on its write (the conditional UPDATE): its acquire is a no-op.
      const { floor, timed: timedF } = overheadFor(lock);
      const { history } = readRunHistory(out.runDir);
      const warmupMs = (timeLimitS * 1000) / 3;
      const recorded = {
        acquire: steadyLatency(history, timedF, warmupMs),
        release: steadyLatency(history, 'release', warmupMs),
      };
      const wholeRun = out.results.latency[timedF];
      const row: OverheadRow = {
        lock,
        floor,
        recorded,
        floorDirect: f.direct,
        floorProxied: f.proxied,
        floorPaced: f.paced,
        ...(f.alone ? { strategyAlone: f.alone } : {}),
        clientNetwork: readTest(out.runDir).clientNetwork,
        ops: out.results.opCounts.total,
        warmupMs,
        recordedWholeRun: wholeRun,
      };
      rows.push(row);
      console.log(
        `harness ${lock.padEnd(11)} ${timedF.padEnd(7)} p50 ${ms(recorded.acquire.p50)} p99 ${ms(recorded.acquire.p99)} (n=${recorded.acquire.count}, after ${(warmupMs / 1000).toFixed(1)} s; whole run p50 ${ms(wholeRun.p50)}), release p50 ${ms(recorded.release.p50)} p99 ${ms(recorded.release.p99)}; ` +
          (f.alone ? `strategy alone acquire p50 ${ms(f.alone.acquire.p50)}; ` : '') +
          `floor ${floor} paced p50 ${ms(row.floorPaced!.acquire.p50)} → ${(recorded.acquire.p50 / row.floorPaced!.acquire.p50).toFixed(2)}× (back to back ${ms(row.floorDirect.acquire.p50)} → ${(recorded.acquire.p50 / row.floorDirect.acquire.p50).toFixed(2)}×); clients ${row.clientNetwork ?? 'proxied'}`,
      );
    }
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
  }
  const goals: Goal[] = rows.flatMap((row) =>
    [overheadGoal(row, floors[row.lock]?.zkParts), harnessShareGoal(row)].filter((g): g is Goal => g !== undefined),
  );
  return { benchmark: 'overhead', goals, data: { samples, timeLimitS, ttlMs: BENCH_TTL_MS, floors, rows } };
}
