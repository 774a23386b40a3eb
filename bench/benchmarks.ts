import type { BenchOutcome } from './outcome.ts';

/**
 * Every benchmark, in the order `all` runs them. Adding one is one line here plus its file, which exports
 * `run(args): Promise<BenchOutcome>`. `quick` are the arguments `all --quick` passes: small enough that the whole
 * set stays under 10 minutes on 2 cores.
 */
export interface Benchmark {
  name: string;
  summary: string;
  quick: string[];
  load: () => Promise<{ run(args: string[]): Promise<BenchOutcome> }>;
}

export const BENCHMARKS: readonly Benchmark[] = [
  {
    name: 'startup',
    summary: 'full-cluster boot (local, docker) and time from the command to the first history op',
    quick: ['--rounds=1'],
    load: () => import('./startup.ts'),
  },
  {
    name: 'checker',
    summary: 'checker speed and memory: generated bank histories, crashed-op histories, the Knossos corpus',
    quick: ['--quick'],
    load: () => import('./checker.ts'),
  },
  {
    name: 'detection',
    summary:
      'detection power: share of runs that find each unsafe cell’s anomaly, time to it, share within 2/5/10 s, fault hit rate; false alarms of safe cells',
    quick: ['--quick'],
    load: () => import('./detection.ts'),
  },
  {
    name: 'overhead',
    summary:
      'acquire/release latency the harness records (1 client) against the bare ops on the same servers, and the proxy apart',
    quick: ['--samples=300', '--time-limit=6'],
    load: () => import('./overhead.ts'),
  },
  {
    name: 'throughput',
    summary:
      'ok ops/s the harness records (redis, etcd, postgres; 1–32 clients, --think=0) against the same calls without it, and whose CPU',
    quick: ['--concurrency=1,16', '--accounts=1', '--time-limit=4'],
    load: () => import('./throughput.ts'),
  },
  {
    name: 'nightly-plan',
    summary:
      'expected wall time of the nightly plan (both tables, and per shard) from the cell times stored nights record',
    quick: [],
    load: () => import('./nightly-plan.ts'),
  },
  {
    name: 'memory',
    summary: 'peak RSS of the harness and of one client in a run with 10 clients and 10 accounts',
    quick: ['--time-limit=20'],
    load: () => import('./memory.ts'),
  },
];

/** Old names that still work: `boot` is the boot half of `startup`. */
export const ALIASES: Readonly<Record<string, { name: string; args: string[] }>> = {
  boot: { name: 'startup', args: ['--only=boot'] },
};
