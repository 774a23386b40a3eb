import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { PidRecord } from '../common/pid-registry.ts';

/**
 * CPU time of the processes of a run, read from /proc: the harness (this process), its clients and its servers,
 * so a throughput figure comes with who was busy. Linux only (the harness's clusters are, too).
 */

/** /proc reports utime and stime in USER_HZ ticks, 100 a second on every Linux ABI Node runs on. */
const TICKS_PER_S = 100;

export type Role = 'harness' | 'client' | 'server';
export interface Tracked {
  pid: number;
  role: Role;
}

/**
 * utime + stime, in ticks, from the text of /proc/<pid>/stat (the whole thread group's); null if it is not one.
 * The command name may hold spaces and parentheses: the fields start after the last ')'. utime, stime are 14, 15.
 */
export function ticksFromStat(stat: string): number | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const fields = stat.slice(close + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks : null;
}

/** The pids in /proc/<pid>/task/<pid>/children: space-separated, a trailing space, empty for none. */
export function pidsFromChildren(text: string): number[] {
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

/** utime + stime of a live process, in ticks; null when it is gone. */
function ticksOf(pid: number): number | null {
  try {
    return ticksFromStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return pidsFromChildren(fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8'));
  } catch {
    return [];
  }
}

/**
 * The processes a run's pid registries name (`<dir>/*.json`, common/pid-registry.ts): `client-<n>` are clients,
 * the rest servers; a record with `killChildren` (Postgres) brings its children (the backends, one per client
 * connection, where a query's CPU goes).
 */
export function trackedFromPidDirs(dirs: readonly string[]): Tracked[] {
  const out: Tracked[] = [];
  for (const dir of dirs) {
    let files: string[];
    try {
      files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    } catch {
      continue;
    }
    for (const f of files) {
      let r: PidRecord;
      try {
        r = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as PidRecord;
      } catch {
        continue; // removed or being replaced meanwhile
      }
      if (!r.pid) continue;
      const role: Role = r.name.startsWith('client-') ? 'client' : 'server';
      out.push({ pid: r.pid, role });
      if (r.killChildren) for (const c of childrenOf(r.pid)) out.push({ pid: c, role });
    }
  }
  return out;
}

export interface CpuSnapshot {
  /** process.hrtime.bigint(): CLOCK_MONOTONIC, the clock the history is stamped with. */
  atNs: bigint;
  ticks: Map<number, { role: Role; ticks: number }>;
}

export function snapshot(tracked: readonly Tracked[]): CpuSnapshot {
  const ticks = new Map<number, { role: Role; ticks: number }>();
  for (const t of tracked) {
    const n = ticksOf(t.pid);
    if (n !== null) ticks.set(t.pid, { role: t.role, ticks: n });
  }
  return { atNs: process.hrtime.bigint(), ticks };
}

/** CPU used between two snapshots, in cores (CPU seconds per second of wall time). */
export interface CpuShare {
  wallS: number;
  harness: number;
  clients: number;
  servers: number;
  /** How many processes of each role were read at the end: a 0 beside 0 processes is a reading that saw none. */
  seen: { harness: number; clients: number; servers: number };
}

/**
 * Between `a` and `b`, per role. A process `a` did not see started after it (pids are not reused within a run):
 * all of its CPU counts — a Postgres backend forked when a client connects is where that client's queries cost.
 * One that ended before `b` is lost: over a series of snapshots, CpuWindow keeps each process's last reading.
 */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): CpuShare {
  const wallS = Number(b.atNs - a.atNs) / 1e9;
  const sum = { harness: 0, client: 0, server: 0 };
  const seen = { harness: 0, client: 0, server: 0 };
  for (const [pid, end] of b.ticks) {
    sum[end.role] += (end.ticks - (a.ticks.get(pid)?.ticks ?? 0)) / TICKS_PER_S;
    seen[end.role]++;
  }
  const per = (s: number) => (wallS > 0 ? s / wallS : 0);
  return {
    wallS,
    harness: per(sum.harness),
    clients: per(sum.client),
    servers: per(sum.server),
    seen: { harness: seen.harness, clients: seen.client, servers: seen.server },
  };
}

/**
 * The CPU over a series of snapshots: from the first to the last, each process counted up to the last snapshot
 * that saw it alive. Between two snapshots of the same instant nothing is measured (null). Without the latest
 * readings, a process that ended before the last snapshot lost all its CPU: a run's clients stop one by one at
 * its end and their Postgres backends go with them, and a reading taken then showed the servers at 0.00 cores.
 */
export class CpuWindow {
  private first: CpuSnapshot | null = null;
  private lastAtNs = 0n;
  private readonly latest = new Map<number, { role: Role; ticks: number }>();

  add(s: CpuSnapshot): void {
    this.first ??= s;
    this.lastAtNs = s.atNs;
    for (const [pid, t] of s.ticks) this.latest.set(pid, t);
  }

  get fromNs(): bigint | null {
    return this.first?.atNs ?? null;
  }

  get toNs(): bigint | null {
    return this.first ? this.lastAtNs : null;
  }

  share(): CpuShare | null {
    if (!this.first || this.lastAtNs === this.first.atNs) return null;
    return cpuBetween(this.first, { atNs: this.lastAtNs, ticks: this.latest });
  }
}

const WATCH_SCRIPT = new URL('./cpu-watch.ts', import.meta.url);
const TSX = import.meta.resolve('tsx');

export type WatchRequest =
  | { type: 'watch'; harnessPid: number; runsOf: string; clients: number; everyMs: number }
  | { type: 'stop' };
export type WatchReply =
  | { type: 'watching' }
  | { type: 'window'; share: CpuShare | null; fromNs: string; toNs: string };

/**
 * Watches, from a process of its own (so its reads of /proc are neither the harness's CPU nor in its profile), the
 * run under `runsOf` (`<results>/<lock>`) with `clients` client slots: bench/cpu-watch.ts. `stop()` gives the CPU
 * of the run's client phase, while every client was running.
 */
export async function watchRun(
  runsOf: string,
  clients: number,
  everyMs = 100,
): Promise<{ stop(): Promise<(CpuShare & { fromNs: bigint; toNs: bigint }) | null> }> {
  const child = fork(WATCH_SCRIPT, [], { execArgv: ['--import', TSX], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () =>
    new Promise<WatchReply>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the CPU watch exited with code ${code}; its stderr is above`)));
    });
  let reply = next();
  child.send({ type: 'watch', harnessPid: process.pid, runsOf, clients, everyMs } satisfies WatchRequest);
  await reply;
  return {
    async stop() {
      reply = next();
      child.send({ type: 'stop' } satisfies WatchRequest);
      const r = await reply;
      if (r.type !== 'window' || !r.share) return null;
      return { ...r.share, fromNs: BigInt(r.fromNs), toNs: BigInt(r.toNs) };
    },
  };
}
