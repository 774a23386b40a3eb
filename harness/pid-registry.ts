import fs from 'node:fs';
import path from 'node:path';

/**
 * Pid files of everything a run starts, so `fencepost cleanup` can find leftovers of a run that was killed
 * with `kill -9` (when no signal handler could stop them). A pid alone is not proof — pids are reused — so
 * each record carries a marker string that must appear in the live process's command line.
 */
export interface PidRecord {
  name: string;
  pid: number;
  /** A string that must occur in /proc/<pid>/cmdline for the pid to still be ours. */
  marker: string;
  /** Pause-able processes that are not the main one (Postgres backends), found by parent pid at cleanup. */
  killChildren?: boolean;
}

export class PidRegistry {
  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(name: string): string {
    return path.join(this.dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);
  }

  add(record: PidRecord): void {
    fs.writeFileSync(this.file(record.name), JSON.stringify(record));
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

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
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
