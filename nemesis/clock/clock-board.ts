import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildClockShim, ClockOffsetFile, type ClockRateChange, type ClockState } from './clock-shim.ts';
import type { ClockCounters } from './clock-record.ts';
import { HarnessError } from '../../common/errors.ts';
import { notOurs } from '../../common/ownership.ts';

/**
 * Where a run's clock folder goes: the OS temp dir, or /tmp when that path holds a space or a colon (ld.so splits
 * LD_PRELOAD on both, so the shim's path must have neither — whatever the results or checkout path looks like).
 */
function clockParent(): string {
  const tmp = os.tmpdir();
  return /[\s:]/.test(tmp) ? '/tmp' : tmp;
}

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
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
    /** The shim's sha256 right after we built it: what every spawn checks the file against. */
    private readonly shimDigest: string,
  ) {}

  /**
   * Builds the shim into a fresh private folder (mkdtemp, 0700 while it builds, then 0755 so the postgres user
   * can map it — writable by us only) under the OS temp dir, never into the run dir: the run's folders may be
   * reachable by other users, and the clients (root, when the harness is) preload this file. Its path has no space
   * or colon whatever `runClockDir` has. `runClockDir` (normally `<runDir>/clock`) gets a note of where it went.
   */
  static async create(runClockDir: string): Promise<ClockBoard> {
    const dir = fs.mkdtempSync(path.join(clockParent(), 'fencepost-clock-'));
    try {
      const shimPath = await buildClockShim(dir);
      // Whatever the umask: readable and mappable by the servers' accounts, writable by us alone.
      fs.chmodSync(shimPath, 0o755);
      fs.chmodSync(dir, 0o755);
      fs.mkdirSync(runClockDir, { recursive: true });
      fs.writeFileSync(path.join(runClockDir, 'CLOCK-FILES-ARE-ELSEWHERE'), `${dir}\n`);
      return new ClockBoard(dir, shimPath, sha256(shimPath));
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Before each spawn that preloads it: the folder and the shim are still ours, writable by nobody else, and the
   * shim is the file we built. A swapped library would run inside every client and server.
   */
  private checkShim(): void {
    const why =
      notOurs(this.dir, 'dir', { private: true }) ??
      notOurs(this.shimPath, 'file', { private: true }) ??
      (sha256(this.shimPath) === this.shimDigest ? null : 'is not the file we built (its sha256 changed)');
    if (why)
      throw new HarnessError(
        'run-dir',
        `the clock shim ${this.shimPath} (or its folder) ${why}; refusing to preload it.`,
        {
          hint: 'something else writes into the temp folder; run again, and find out what touched it',
        },
      );
  }

  private file(name: string): ClockOffsetFile {
    let f = this.files.get(name);
    if (!f) {
      f = ClockOffsetFile.create(path.join(this.dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.offset`), this.shimPath);
      this.files.set(name, f);
    }
    return f;
  }

  /** The path of `name`'s clock record (created at real time when it has none yet). */
  recordPath(name: string): string {
    return this.file(name).path;
  }

  /** Environment for the process `name`: LD_PRELOAD of the shim and its offset file (created at offset 0). */
  env(name: string): Record<string, string> {
    this.checkShim();
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

  /** Make the clocks of `name` run at a rate from its next clock read on, joined without a jump (see shim.c). */
  setRate(name: string, change: ClockRateChange): ClockState {
    return this.file(name).setRate(change);
  }

  /** The clocks of `name` back at real speed, its wall clock real again (see ClockOffsetFile.resetRates). */
  resetRates(name: string): void {
    this.files.get(name)?.resetRates();
  }

  /**
   * The real CLOCK_MONOTONIC instant at which `name` read `fakeNs` from its monotonic clock: the reading as it is for
   * a process whose monotonic clock no rate ever moved (clock-rate-client's process scope does).
   */
  realMonotonic(name: string, fakeNs: bigint): bigint {
    return this.files.get(name)?.realMonotonic(fakeNs) ?? fakeNs;
  }

  /** What the clocks of `name` are set to; undefined for a process that has no record (its clocks are real). */
  state(name: string): ClockState | undefined {
    return this.files.get(name)?.state();
  }

  /** Clock reads `name` served moved and waits it scaled: a shot that moved its clock reached it only if these grew. */
  counters(name: string): ClockCounters {
    return this.files.get(name)?.counters() ?? { reads: 0n, waits: 0n };
  }

  /**
   * Every clock back to real time — as far as a clock can go back: the offsets and the wall clock's drift go to 0
   * and every rate to 1, but the monotonic clock keeps the drift it gathered (stepping it back would be the one
   * thing a monotonic clock never does). Returns the offsets of the processes whose clocks were moved before.
   */
  resetAll(): Record<string, number> {
    const was: Record<string, number> = {};
    for (const [name, f] of this.files) {
      const s = f.state();
      const ms = s.offsetMs;
      const rated = s.rates.realtime !== 1 || s.rates.monotonic !== 1 || s.driftMs.realtime !== 0;
      if (ms !== 0 || rated) {
        was[name] = ms;
        if (rated) f.resetRates();
        f.set(0);
      }
    }
    return was;
  }

  /** Close our descriptors and remove the clock folder. Processes must be gone by now. */
  dispose(): void {
    for (const f of this.files.values()) f.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
