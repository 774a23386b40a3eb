import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildClockShim, ClockOffsetFile } from './clock-shim.ts';

/** Whether other users can reach `dir` (o+x on every ancestor): Postgres runs as its own user and must load the shim. */
function reachableByOthers(dir: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      if ((fs.statSync(d).mode & 0o001) === 0) return false;
    } catch {
      // not created yet: its parent decides
    }
    if (d === path.dirname(d)) return true;
  }
}

/**
 * The wall-clock offsets of one run: the clock shim, built once, and one offset file per process that may be
 * skewed — each node by name (`redis[0]`, `etcd[1]`, `pg`, …), each client by `client-<slot>`. A process gets
 * its file through `env(name)` when it is spawned; a restarted node gets the same file back, so it comes up
 * with the clock it had (a machine's clock doesn't reset when a process restarts).
 */
export class ClockBoard {
  private readonly files = new Map<string, ClockOffsetFile>();

  private constructor(
    readonly dir: string,
    private readonly shimPath: string,
    /** A folder we created outside the run dir (see create), removed by dispose. */
    private readonly outside: string | null,
  ) {}

  /**
   * Builds the shim under `dir` (normally `<runDir>/clock`). When `dir` is inside a folder other users can't
   * enter (a 0700 mkdtemp dir, /root), the shim and the offset files go to a fresh world-readable folder under the
   * OS temp dir instead, because the postgres user must be able to map both.
   */
  static async create(dir: string): Promise<ClockBoard> {
    let outside: string | null = null;
    let where = dir;
    if (process.getuid?.() === 0 && !reachableByOthers(dir)) {
      outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-clock-'));
      fs.chmodSync(outside, 0o755);
      where = outside;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'CLOCK-FILES-ARE-ELSEWHERE'), `${outside}\n`);
    }
    fs.mkdirSync(where, { recursive: true });
    const shimPath = await buildClockShim(where);
    return new ClockBoard(where, shimPath, outside);
  }

  private file(name: string): ClockOffsetFile {
    let f = this.files.get(name);
    if (!f) {
      f = ClockOffsetFile.create(path.join(this.dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.offset`), this.shimPath);
      this.files.set(name, f);
    }
    return f;
  }

  /** Environment for the process `name`: LD_PRELOAD of the shim and its offset file (created at offset 0). */
  env(name: string): Record<string, string> {
    return { ...this.file(name).env() };
  }

  /** Move the wall clock of `name` to real time + offsetMs (from its next clock read on). */
  set(name: string, offsetMs: number): void {
    this.file(name).set(offsetMs);
  }

  get(name: string): number {
    return this.files.get(name)?.get() ?? 0;
  }

  /** Every process that has an offset file, with its current offset in ms. */
  offsets(): Record<string, number> {
    return Object.fromEntries([...this.files].map(([name, f]) => [name, f.get()]));
  }

  /** Every clock back to real time; returns the offsets that were non-zero before. */
  resetAll(): Record<string, number> {
    const was: Record<string, number> = {};
    for (const [name, f] of this.files) {
      const ms = f.get();
      if (ms !== 0) {
        was[name] = ms;
        f.set(0);
      }
    }
    return was;
  }

  /** Close our descriptors and remove a folder made outside the run dir. Processes must be gone by now. */
  dispose(): void {
    for (const f of this.files.values()) f.close();
    if (this.outside) fs.rmSync(this.outside, { recursive: true, force: true });
  }
}
