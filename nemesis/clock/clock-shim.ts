/**
 * Clock faults for one process: the LD_PRELOAD shim in shim.c, and the record the harness writes its settings to
 * (an offset — the jump — and a rate per clock family, with a scope). Build the shim once per run with
 * buildClockShim(), create one ClockOffsetFile per process (or per Postgres cluster: its backends inherit the
 * mapping and the env), spawn the process with `env()` added, then `set()` moves its wall clock and `setRate()` makes
 * its clocks run fast or slow, both from its next clock read on. `counters()` says how many clock reads the process
 * served moved: the proof that a shot reached it.
 *
 * Offsets move the wall clock only. Rates move the wall clock (scope `wall`) or the wall and monotonic clocks and
 * the process's waits (scope `process`); see shim.c for what is and is not scaled. Go binaries (etcd) read the clock
 * through the vDSO without libc, so the shim has no effect on them: etcd is immune, and reports must say so.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { closeSync, openSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AT,
  RECORD_BYTES,
  checkRecord,
  decodeCounters,
  decodeSeq,
  decodeSettings,
  encodeSeq,
  encodeSettings,
  initialRecord,
  type ClockCounters,
  type ClockFamily,
  type ClockScope,
  type ClockSettings,
} from './clock-record.ts';
import { REAL_TIME, UNIT_PPB, changeRate, toPpb, type Segment } from './clock-segment.ts';
import { MonotonicTimeline } from './monotonic-timeline.ts';

export const CLOCK_FILE_ENV = 'FENCEPOST_CLOCK_FILE';
export const SHIM_FILE_NAME = 'fencepost-clock.so';

const SHIM_SOURCE = fileURLToPath(new URL('./shim.c', import.meta.url));
const CC_FLAGS = ['-shared', '-fPIC', '-O2', '-Wall'] as const;

export type ClockShimBuildErrorKind = 'compiler-missing' | 'compile-failed';

export class ClockShimBuildError extends Error {
  constructor(
    readonly kind: ClockShimBuildErrorKind,
    message: string,
    readonly compilerOutput: string,
  ) {
    super(message);
    this.name = 'ClockShimBuildError';
  }
}

export interface BuildClockShimOptions {
  /** The C compiler to run; `cc` from PATH unless given. */
  readonly cc?: string;
}

/**
 * Compiles shim.c to `<outDir>/fencepost-clock.so` and returns its absolute path. A stamp file next
 * to it records the hash of the source and the compile command, so a second call with nothing
 * changed only reads two small files.
 */
export async function buildClockShim(outDir: string, options: BuildClockShimOptions = {}): Promise<string> {
  const cc = options.cc ?? 'cc';
  const dir = resolve(outDir);
  const out = join(dir, SHIM_FILE_NAME);
  const stampPath = `${out}.sha256`;
  const source = await readFile(SHIM_SOURCE);
  const hash = createHash('sha256')
    .update(source)
    .update(JSON.stringify([cc, CC_FLAGS]))
    .digest('hex');

  const [stamp, built] = await Promise.all([
    readFile(stampPath, 'utf8').catch(() => ''),
    stat(out).then(
      (s) => s.isFile(),
      () => false,
    ),
  ]);
  if (built && stamp.trim() === hash) return out;

  assertPreloadable(out);
  await mkdir(dir, { recursive: true });
  // Compile beside the target and rename over it: a process that already has the old .so mapped
  // keeps its inode, and two concurrent builds cannot interleave their bytes.
  const tmp = `${out}.${process.pid}.${Date.now()}.tmp`;
  try {
    await compile(cc, [...CC_FLAGS, '-o', tmp, SHIM_SOURCE]);
    await rename(tmp, out);
  } finally {
    await rm(tmp, { force: true });
  }
  await writeFile(stampPath, `${hash}\n`);
  return out;
}

function compile(cc: string, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(cc, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error === null) return resolvePromise();
      const output = `${stdout}${stderr}`.trim();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(
          new ClockShimBuildError(
            'compiler-missing',
            `clock shim: C compiler "${cc}" not found on PATH; install one (Debian: apt-get install gcc) ` +
              'or run without clock faults',
            output,
          ),
        );
        return;
      }
      reject(
        new ClockShimBuildError(
          'compile-failed',
          `clock shim: "${cc} ${args.join(' ')}" failed (${error.message.split('\n')[0]})` +
            (output ? `; compiler output:\n${output}` : ''),
          output,
        ),
      );
    });
  });
}

/** ld.so splits LD_PRELOAD on spaces and colons, so such a path would silently preload nothing. */
function assertPreloadable(path: string): void {
  if (/[\s:]/.test(path)) {
    throw new Error(
      `clock shim: path "${path}" contains a space or colon, which LD_PRELOAD cannot carry; use another results dir`,
    );
  }
}

const NS_PER_MS = 1_000_000;
// ~31 years: beyond any useful skew, and far from overflowing the shim's int64 once added to now.
const MAX_ABS_OFFSET_MS = 1e12;

/** A change of rate: which clock families, how fast (1 = real speed, 0 = frozen), and what else it reaches. */
export interface ClockRateChange {
  readonly clocks: readonly ClockFamily[];
  readonly rate: number;
  readonly scope: ClockScope;
}

/** What a process's clocks are set to: what a result records, so it can never say "wall" when waits were scaled. */
export interface ClockState {
  readonly offsetMs: number;
  readonly scope: ClockScope;
  readonly rates: Readonly<Record<ClockFamily, number>>;
  /** How far each family had drifted from real time (by rates, not the offset) when its rate last changed. */
  readonly driftMs: Readonly<Record<ClockFamily, number>>;
}

/**
 * The clocks of one process, in a record that process maps. Methods are synchronous on purpose: when `set()` or
 * `setRate()` returns, the process's next clock read already sees the change, so the nemesis can record its op as
 * done without racing the server.
 */
export class ClockOffsetFile {
  private fd: number | undefined;
  /** Every monotonic segment this record had: what maps the process's monotonic readings back to real time. */
  private readonly timeline = new MonotonicTimeline();

  private constructor(
    /** Absolute path of the record. */
    readonly path: string,
    /** Absolute path of the built shim. */
    readonly shimPath: string,
  ) {
    this.fd = openSync(path, 'r+');
    checkRecord(this.readRecord(), path);
  }

  /**
   * Creates (or replaces) the record at real time: offset 0, every rate 1, scope wall, counters 0. Replacing is a
   * rename, never a truncate: a process still mapping an old file at this path would get SIGBUS when it next read a
   * truncated page. The file is world-readable because Postgres runs as its own user.
   */
  static create(path: string, shimPath: string): ClockOffsetFile {
    const abs = resolve(path);
    const shim = resolve(shimPath);
    assertPreloadable(shim);
    const tmp = `${abs}.${process.pid}.tmp`;
    const real: ClockSettings = {
      offsetNs: 0n,
      scope: 'wall',
      segments: { realtime: REAL_TIME, monotonic: REAL_TIME },
    };
    writeFileSync(tmp, initialRecord(real), { mode: 0o644 });
    renameSync(tmp, abs);
    return new ClockOffsetFile(abs, shim);
  }

  /** Moves the process's wall clock by offsetMs from where its rate has it (sub-millisecond values are kept to the ns). */
  set(offsetMs: number): void {
    if (!Number.isFinite(offsetMs) || Math.abs(offsetMs) > MAX_ABS_OFFSET_MS) {
      throw new RangeError(`clock offset must be a finite number of ms within ±${MAX_ABS_OFFSET_MS}, got ${offsetMs}`);
    }
    this.change((s) => ({ ...s, offsetNs: BigInt(Math.round(offsetMs * NS_PER_MS)) }));
  }

  /** The offset currently in the record, in ms. */
  get(): number {
    return Number(decodeSettings(this.readRecord()).offsetNs) / NS_PER_MS;
  }

  /**
   * Makes `change.clocks` run at `change.rate` from now on, each starting from where its fake time is now (no jump).
   * Refuses a negative rate, and a monotonic rate under scope `wall`: the monotonic clock is what waits are
   * measured by, so moving it is a process-wide change and must say so.
   */
  setRate(change: ClockRateChange): ClockState {
    const ratePpb = toPpb(change.rate);
    if (change.clocks.length === 0) throw new RangeError('clock rate change names no clock');
    this.change((s, nowNs) => {
      const segments: Record<ClockFamily, Segment> = { ...s.segments };
      for (const family of change.clocks) segments[family] = changeRate(s.segments[family], nowNs, ratePpb);
      if (change.scope === 'wall' && segments.monotonic.ratePpb !== UNIT_PPB) {
        throw new RangeError(
          `scope wall moves the wall clock only, but the monotonic clock would run at ${change.rate}: use scope process`,
        );
      }
      return { ...s, scope: change.scope, segments };
    });
    return this.state();
  }

  /**
   * Every rate back to 1 and scope wall; the wall clock's drift back to 0 (a step, as an offset reset is), the
   * monotonic clock's kept, since it must never step back.
   */
  resetRates(): ClockState {
    this.change((s, nowNs) => ({
      ...s,
      scope: 'wall',
      segments: { realtime: REAL_TIME, monotonic: changeRate(s.segments.monotonic, nowNs, UNIT_PPB) },
    }));
    return this.state();
  }

  /** The settings in the record, in the units a report prints. */
  state(): ClockState {
    const s = decodeSettings(this.readRecord());
    const per = (f: (seg: Segment) => number) => ({
      realtime: f(s.segments.realtime),
      monotonic: f(s.segments.monotonic),
    });
    return {
      offsetMs: Number(s.offsetNs) / NS_PER_MS,
      scope: s.scope,
      rates: per((seg) => Number(seg.ratePpb) / 1e9),
      driftMs: per((seg) => Number(seg.baseDriftNs) / NS_PER_MS),
    };
  }

  /** Clock reads the process served moved, and waits it scaled, since the record was created. */
  counters(): ClockCounters {
    // The shim adds to these while we read; an 8-byte copy is not promised to be one load, so read until two agree.
    let a = decodeCounters(this.readRecord());
    for (;;) {
      const b = decodeCounters(this.readRecord());
      if (a.reads === b.reads && a.waits === b.waits) return b;
      a = b;
    }
  }

  /**
   * The real CLOCK_MONOTONIC instant at which this record's process read `fakeNs` from its (shimmed) monotonic
   * clock: the reading itself while no rate ever moved that clock. The harness journals a client's stamps with it.
   */
  realMonotonic(fakeNs: bigint): bigint {
    return this.timeline.realAt(fakeNs);
  }

  /** Variables to add to the child's environment. Callers that already preload something must join the lists themselves. */
  env(): { LD_PRELOAD: string; [CLOCK_FILE_ENV]: string } {
    return { LD_PRELOAD: this.shimPath, [CLOCK_FILE_ENV]: this.path };
  }

  /** Closes our descriptor; the file stays, since the process may still be running and mapping it. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * The seqlock's writer (its reader is in shim.c): seq odd, *then* the real monotonic now the new segments start
   * at, then the fields, then seq even. Reading now after seq went odd is what keeps a racing reader's monotonic
   * clock from stepping back (shim.c's header has the argument). We are the only writer of a record.
   */
  private change(next: (s: ClockSettings, nowNs: bigint) => ClockSettings): void {
    const fd = this.openFd();
    const before = this.readRecord();
    const seq = decodeSeq(before) | 1n; // odd; a record we left odd (a throw below) is closed by this write
    const settings = decodeSettings(before);
    this.writeAt(fd, encodeSeq(seq), AT.seq);
    try {
      const after = next(settings, process.hrtime.bigint());
      const { offset, tail } = encodeSettings(after);
      this.writeAt(fd, offset, AT.offsetNs);
      this.writeAt(fd, tail, AT.scope);
      if (!sameSegment(after.segments.monotonic, settings.segments.monotonic))
        this.timeline.push(after.segments.monotonic);
    } finally {
      this.writeAt(fd, encodeSeq(seq + 1n), AT.seq);
    }
  }

  private writeAt(fd: number, buf: Buffer, at: number): void {
    const written = writeSync(fd, buf, 0, buf.length, at);
    if (written !== buf.length)
      throw new Error(`clock record: short write to ${this.path} (${written} of ${buf.length})`);
  }

  private readRecord(): Buffer {
    const buf = Buffer.alloc(RECORD_BYTES);
    const read = readSync(this.openFd(), buf, 0, RECORD_BYTES, 0);
    if (read !== RECORD_BYTES) throw new Error(`clock record: ${this.path} is ${read} bytes, expected ${RECORD_BYTES}`);
    return buf;
  }

  private openFd(): number {
    if (this.fd === undefined) throw new Error(`clock offset file ${this.path} is closed`);
    return this.fd;
  }
}

const sameSegment = (a: Segment, b: Segment) =>
  a.baseMonoNs === b.baseMonoNs && a.baseDriftNs === b.baseDriftNs && a.ratePpb === b.ratePpb;
