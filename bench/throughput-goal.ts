import type { SelfFrame } from './cpu-profile.ts';
import type { Goal } from './outcome.ts';
import type { CpuShare } from './process-cpu.ts';

/** Issue 24's goals: the harness records ≥ 80 % of the bare clients' ok ops/s at every concurrency up to 16. */
export const RECORDED_SHARE_GOAL = 0.8;
export const GOAL_MAX_CONCURRENCY = 16;

/** One lock × accounts × concurrency of `bench throughput`. */
export interface ThroughputRow {
  lock: string;
  accounts: number;
  concurrency: number;
  /** Ok client ops a second in the run's history, over `--time-limit` s from its first client op. */
  recordedOkPerS: number;
  /** The same strategy's calls without the harness (bench/throughput-bare-client.ts), ok calls per second. */
  bareOkPerS: number;
  /** CPU of the harness, its clients and the servers over the run's client phase; null when not sampled. */
  cpu: CpuShare | null;
  /** The same for the bare loop (its `harness` is the benchmark itself, idle meanwhile). */
  bareCpu: CpuShare | null;
  /** The harness process's busiest frames over the client phase (its CPU profile). */
  topFrames: SelfFrame[];
  verdict: string;
  /** p50 of the row's acquire (postgres: write), invoke → ok, in the counted window, recorded and bare; null: none. */
  recordedAcquireP50Ms: number | null;
  bareAcquireP50Ms: number | null;
  /** `info` ops (timeouts, errors: the client reconnects as a new process) in the run's history… */
  recordedInfos: number;
  /** …and in the bare clients' ops. */
  bareInfos: number;
}

const msOrDash = (x: number | null) => (x === null ? '-' : x.toFixed(3));
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const cores = (x: number) => x.toFixed(2);
export const shareOf = (r: ThroughputRow): number => (r.bareOkPerS > 0 ? r.recordedOkPerS / r.bareOkPerS : 0);

/**
 * Per lock and account count, two goals: recorded/bare ≥ 80 % at every measured concurrency ≤ 16, and the
 * harness's own CPU below the servers' at every measured concurrency (32 included: that one is about who the
 * bottleneck is, and above 16 it is the harness's to lose). A miss names the rows and the harness's top frame.
 */
export function throughputGoals(rows: readonly ThroughputRow[], cpus: number): Goal[] {
  const groups = new Map<string, ThroughputRow[]>();
  for (const r of rows) {
    const k = `${r.lock}, ${r.accounts} account${r.accounts === 1 ? '' : 's'}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const goals: Goal[] = [];
  for (const [k, g] of groups) {
    const upTo = g.filter((r) => r.concurrency <= GOAL_MAX_CONCURRENCY);
    if (upTo.length === 0) {
      goals.push({
        what: `${k}: recorded ok ops/s vs bare`,
        goal: `≥ ${pct(RECORDED_SHARE_GOAL)} at every concurrency ≤ ${GOAL_MAX_CONCURRENCY}`,
        measured: '-',
        met: 'skipped',
        why: `no concurrency ≤ ${GOAL_MAX_CONCURRENCY} measured`,
      });
    } else {
      const worst = upTo.reduce((a, b) => (shareOf(b) < shareOf(a) ? b : a));
      const misses = upTo.filter((r) => shareOf(r) < RECORDED_SHARE_GOAL);
      goals.push({
        what: `${k}: recorded ok ops/s vs bare, ${cpus} cores`,
        goal: `≥ ${pct(RECORDED_SHARE_GOAL)} at every concurrency ≤ ${GOAL_MAX_CONCURRENCY}`,
        measured: `worst ${pct(shareOf(worst))} at ${worst.concurrency} (${worst.recordedOkPerS.toFixed(0)} / ${worst.bareOkPerS.toFixed(0)} ok/s)`,
        met: misses.length === 0,
        ...(misses.length ? { why: misses.map(missLine).join('; ') } : {}),
      });
    }
    // A reading that found no server process measured nothing of the servers: not a 0 to compare with.
    const sampled = g.filter((r) => r.cpu !== null && r.cpu.seen.servers > 0);
    if (sampled.length === 0) {
      goals.push({
        what: `${k}: harness CPU vs servers'`,
        goal: 'below, at every concurrency',
        measured: '-',
        met: 'skipped',
        why: g.some((r) => r.cpu !== null)
          ? 'no reading of the client phase found a server process'
          : 'no client phase was sampled',
      });
      continue;
    }
    const over = sampled.filter((r) => r.cpu!.harness >= r.cpu!.servers);
    const worst = sampled.reduce((a, b) =>
      b.cpu!.harness / Math.max(b.cpu!.servers, 1e-9) > a.cpu!.harness / Math.max(a.cpu!.servers, 1e-9) ? b : a,
    );
    goals.push({
      what: `${k}: harness CPU vs servers'`,
      goal: 'below, at every concurrency',
      measured: `worst at ${worst.concurrency}: harness ${cores(worst.cpu!.harness)}, servers ${cores(worst.cpu!.servers)} cores`,
      met: over.length === 0,
      ...(over.length
        ? {
            why: over
              .map((r) => `at ${r.concurrency} ${cores(r.cpu!.harness)} ≥ ${cores(r.cpu!.servers)}${topFrame(r)}`)
              .join('; '),
          }
        : {}),
    });
  }
  return goals;
}

const topFrame = (r: ThroughputRow) =>
  r.topFrames[0] ? `, harness top frame ${r.topFrames[0].frame} ${pct(r.topFrames[0].share)}` : '';

function missLine(r: ThroughputRow): string {
  const cpu = r.cpu
    ? `, harness ${cores(r.cpu.harness)} / clients ${cores(r.cpu.clients)} / servers ${cores(r.cpu.servers)} cores`
    : '';
  return `at ${r.concurrency} ${pct(shareOf(r))}${cpu}${topFrame(r)}`;
}

/** The rows as a table: ok ops/s recorded and bare, their ratio, and who used the CPU (cores) in each. */
export function throughputTable(rows: readonly ThroughputRow[]): string {
  const header = [
    'lock',
    'accounts',
    'clients',
    'recorded ok/s',
    'bare ok/s',
    'recorded/bare',
    'acquire p50 rec/bare ms',
    'CPU harness',
    'CPU clients',
    'CPU servers',
    'bare: clients',
    'bare: servers',
  ];
  const c = (s: CpuShare | null, k: 'harness' | 'clients' | 'servers') => (s ? cores(s[k]) : '-');
  const cells = rows.map((r) => [
    r.lock,
    String(r.accounts),
    String(r.concurrency),
    r.recordedOkPerS.toFixed(0),
    r.bareOkPerS.toFixed(0),
    pct(shareOf(r)),
    `${msOrDash(r.recordedAcquireP50Ms)} / ${msOrDash(r.bareAcquireP50Ms)}`,
    c(r.cpu, 'harness'),
    c(r.cpu, 'clients'),
    c(r.cpu, 'servers'),
    c(r.bareCpu, 'clients'),
    c(r.bareCpu, 'servers'),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((x) => x[i].length)));
  const line = (x: string[]) => x.map((v, i) => (i < 3 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
