/**
 * Clock skew for one server process: the LD_PRELOAD shim in shim.c, and the file the harness writes
 * its offset to. Build the shim once per run with buildClockShim(), create one ClockOffsetFile per
 * process (or per Postgres cluster: its backends inherit the mapping and the env), spawn the process
 * with `env()` added, then `set()` moves its wall clock at its next clock read.
 *
 * Monotonic clocks are never moved (see shim.c). Go binaries (etcd) read the clock through the
 * vDSO without libc, so the shim has no effect on them: etcd is immune, and reports must say so.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { closeSync, openSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/**
 * The offset of one process's wall clock, in a file that process maps. Methods are synchronous on
 * purpose: when `set()` returns, the process's next clock read already sees the new offset, so the
 * nemesis can record its op as done without racing the server.
 */
export class ClockOffsetFile {
  private fd: number | undefined;

  private constructor(
    /** Absolute path of the offset file. */
    readonly path: string,
    /** Absolute path of the built shim. */
    readonly shimPath: string,
  ) {
    this.fd = openSync(path, 'r+');
  }

  /**
   * Creates (or replaces) the file with offset 0. Replacing is a rename, never a truncate: a process
   * still mapping an old file at this path would get SIGBUS when it next read a truncated page.
   * The file is world-readable because Postgres runs as its own user.
   */
  static create(path: string, shimPath: string): ClockOffsetFile {
    const abs = resolve(path);
    const shim = resolve(shimPath);
    assertPreloadable(shim);
    const tmp = `${abs}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.alloc(8), { mode: 0o644 });
    renameSync(tmp, abs);
    return new ClockOffsetFile(abs, shim);
  }

  /** Moves the process's wall clock to real time + offsetMs (sub-millisecond values are kept to the ns). */
  set(offsetMs: number): void {
    if (!Number.isFinite(offsetMs) || Math.abs(offsetMs) > MAX_ABS_OFFSET_MS) {
      throw new RangeError(`clock offset must be a finite number of ms within ±${MAX_ABS_OFFSET_MS}, got ${offsetMs}`);
    }
    const buf = Buffer.alloc(8);
    const ns = BigInt(Math.round(offsetMs * NS_PER_MS));
    // The shim reads a native int64.
    if (endianness() === 'LE') buf.writeBigInt64LE(ns);
    else buf.writeBigInt64BE(ns);
    // One pwrite at offset 0 lands in the page the process has mapped MAP_SHARED.
    const written = writeSync(this.openFd(), buf, 0, 8, 0);
    if (written !== 8) throw new Error(`clock offset: short write to ${this.path} (${written} of 8 bytes)`);
  }

  /** The offset currently in the file, in ms. */
  get(): number {
    const buf = Buffer.alloc(8);
    const read = readSync(this.openFd(), buf, 0, 8, 0);
    if (read !== 8) throw new Error(`clock offset: ${this.path} is ${read} bytes, expected 8`);
    const ns = endianness() === 'LE' ? buf.readBigInt64LE() : buf.readBigInt64BE();
    return Number(ns) / NS_PER_MS;
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

  private openFd(): number {
    if (this.fd === undefined) throw new Error(`clock offset file ${this.path} is closed`);
    return this.fd;
  }
}
