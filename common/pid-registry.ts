import fs from 'node:fs';
import path from 'node:path';
import { notOurs } from './ownership.ts';

/**
 * Pid files of everything a run starts, so `fencepost cleanup` can find leftovers of a run that was killed
 * with `kill -9` (when no signal handler could stop them). A pid alone is not proof — pids are reused — so
 * each record carries the process's start time (from /proc; pid + start time names one process for the life
 * of the machine). Command lines are no proof either: redis-server rewrites its own.
 */
export interface PidRecord {
  name: string;
  pid: number;
  /** What the process is about (its run or data dir), for messages. */
  marker: string;
  /** /proc/<pid>/stat start time (clock ticks since boot), filled in by `add`. */
  startTime?: number;
  /** Pause-able processes that are not the main one (Postgres backends), found by parent pid at cleanup. */
  killChildren?: boolean;
  /**
   * The process was spawned as a process group's leader (a lock process held by its group where no cgroup holds
   * it): cleanup kills the group, which may outlive its leader (lock-tree.ts says when that is safe).
   */
  killGroup?: boolean;
  /**
   * Set on a record written *before* the spawn (pid 0): a harness killed between fork and the pid record
   * would otherwise leave an orphan nobody knows about. Cleanup then finds the process by its working
   * directory, among those started no earlier than `notBefore` (clock ticks since boot).
   */
  pending?: { cwd: string; notBefore: number };
}

export class PidRegistry {
  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(name: string): string {
    return path.join(this.dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);
  }

  add(record: PidRecord): void {
    this.write(record.name, {
      ...record,
      pending: undefined,
      startTime: record.startTime ?? startTime(record.pid) ?? undefined,
    });
  }

  /** Record a process about to be spawned in `cwd`; `add` replaces this with its pid once it exists. */
  intend(name: string, marker: string, cwd: string, killChildren = false): void {
    let real = cwd;
    try {
      real = fs.realpathSync(cwd); // /proc/<pid>/cwd is the resolved path
    } catch {
      // spawn will fail on it and say so
    }
    this.write(name, { name, pid: 0, marker, killChildren, pending: { cwd: real, notBefore: ticksSinceBoot() } });
  }

  /** Write then rename, so a harness killed mid-write leaves the old record or the new one, never half of one. */
  private write(name: string, record: PidRecord): void {
    const file = this.file(name);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(record));
    fs.renameSync(`${file}.tmp`, file);
  }

  remove(name: string): void {
    fs.rmSync(this.file(name), { force: true });
  }

  list(): PidRecord[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs
      .readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => {
        // A record another user planted (or a symlink to one) names nothing of ours: cleanup would SIGKILL it.
        if (notOurs(path.join(this.dir, f), 'file')) return [];
        try {
          return [JSON.parse(fs.readFileSync(path.join(this.dir, f), 'utf8')) as PidRecord];
        } catch {
          return [];
        }
      });
  }
}

/** The command line of a live process, or null if it is gone. */
export function cmdline(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return null;
  }
}

/** Direct children of `pid`, from /proc (Postgres backends call setsid(), so process groups don't find them). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may contain spaces: parse after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) out.push(Number(entry));
    } catch {
      // raced with an exiting process
    }
  }
  return out;
}

/** Start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat), or null if gone. */
export function startTime(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return null;
  }
}

/** Now, in the unit of /proc/<pid>/stat start times (USER_HZ, 100 on Linux), rounded down. */
export function ticksSinceBoot(): number {
  return Math.floor(Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 100) - 1;
}

/**
 * How long after a pending record its process may have started: the spawn follows `intend` within milliseconds,
 * so 5 s (500 ticks) is ample; without a bound, someone who later opens a shell in a leftover node folder to look at
 * it would be taken for the server. (Postgres backends start later; they are found as the postmaster's children.)
 */
export const PENDING_WINDOW_TICKS = 500;

/**
 * Processes a pending record may name: started no earlier than the record (and within PENDING_WINDOW_TICKS of
 * it), working in its directory or below it. Only a process of ours was started there after we wrote the record, unless someone `cd`s into a node's
 * directory at that very moment.
 */
export function pendingPids(rec: PidRecord): number[] {
  if (!rec.pending) return [];
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      // At or below: Postgres chdir()s into its data directory as it starts.
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      if (cwd !== rec.pending.cwd && !cwd.startsWith(`${rec.pending.cwd}/`)) continue;
    } catch {
      continue;
    }
    const t = startTime(pid);
    const { notBefore } = rec.pending;
    if (t !== null && t >= notBefore && t <= notBefore + PENDING_WINDOW_TICKS && isAlive(pid)) out.push(pid);
  }
  return out;
}

/**
 * Whether the record still names a live process: same pid *and* same start time. Without a start time (the
 * process was gone before `add` could read it) only an absolute marker path in its command line counts; an empty
 * or garbled marker names nothing — `''` is a substring of every command line.
 */
export function stillOurs(rec: PidRecord): boolean {
  if (!Number.isInteger(rec.pid) || rec.pid <= 0) return false;
  const t = startTime(rec.pid);
  if (t === null) return false;
  if (Number.isFinite(rec.startTime)) return t === rec.startTime;
  return (
    typeof rec.marker === 'string' &&
    rec.marker.length > 1 &&
    rec.marker.startsWith('/') &&
    (cmdline(rec.pid) ?? '').includes(rec.marker)
  );
}

/**
 * Whether the process still runs. A zombie doesn't: Postgres backends whose postmaster was SIGKILLed are
 * re-parented to whatever pid 1 is, and in a container that may never reap them.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const state = processState(pid);
  return state !== null && state !== 'Z' && state !== 'X';
}

/** A process state letter from /proc (`T` = stopped), or null if gone. */
export function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}
