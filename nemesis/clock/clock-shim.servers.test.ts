import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../common/free-port.ts';
import { RECORD_BYTES } from './clock-record.ts';
import { ClockOffsetFile, ClockShimBuildError, SHIM_FILE_NAME, buildClockShim } from './clock-shim.ts';

const JUMP_MS = 120_000;
// Generous: a sample's true skew is within a round trip of the expected one; this only has to
// separate "moved by 120 s" from "did not move".
const TOLERANCE_MS = 2_000;

let dir: string;
let shim: string;
const children: ChildProcess[] = [];
/** Deadlines, not waits: for a clock sample (a JVM starts slowly), a server's ready line, and an exit on a signal. */
const SAMPLE_DEADLINE_MS = 30_000;
const READY_DEADLINE_MS = 20_000;
const STOP_GRACE_MS = 5_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fencepost-clock-'));
  // Postgres runs as its own user and must reach the shim and its offset file.
  chmodSync(dir, 0o755);
  shim = await buildClockShim(join(dir, 'build'));
});

afterAll(async () => {
  await Promise.all(children.map(stop));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('buildClockShim', () => {
  it('builds a shared object that exports the three clock functions', () => {
    expect(shim).toBe(join(dir, 'build', SHIM_FILE_NAME));
    const symbols = execFileSync('nm', ['-D', '--defined-only', shim], { encoding: 'utf8' });
    for (const fn of ['clock_gettime', 'gettimeofday', 'time']) expect(symbols).toMatch(new RegExp(` T ${fn}$`, 'm'));
  });

  it('does not recompile when nothing changed', async () => {
    const before = statSync(shim);
    expect(await buildClockShim(join(dir, 'build'))).toBe(shim);
    const after = statSync(shim);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });

  it('says which compiler is missing', async () => {
    const err = await buildClockShim(join(dir, 'nocc'), { cc: 'fencepost-no-such-cc' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClockShimBuildError);
    expect((err as ClockShimBuildError).kind).toBe('compiler-missing');
    expect((err as Error).message).toContain('fencepost-no-such-cc');
  });

  it('passes the compiler output on when compilation fails', async () => {
    // `false` exists everywhere and fails like a compiler that rejected the source.
    const err = await buildClockShim(join(dir, 'badcc'), { cc: 'false' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClockShimBuildError);
    expect((err as ClockShimBuildError).kind).toBe('compile-failed');
    expect(existsSync(join(dir, 'badcc', SHIM_FILE_NAME))).toBe(false);
  });
});

describe('ClockOffsetFile', () => {
  it('starts at 0, round-trips positive, negative and sub-ms offsets, and rejects nonsense', () => {
    const file = ClockOffsetFile.create(join(dir, 'unit.offset'), shim);
    try {
      expect(statSync(file.path).size).toBe(RECORD_BYTES);
      expect(file.get()).toBe(0);
      for (const ms of [JUMP_MS, -JUMP_MS, 1.5, 0]) {
        file.set(ms);
        expect(file.get()).toBe(ms);
      }
      expect(() => file.set(Number.NaN)).toThrow(RangeError);
      expect(() => file.set(1e15)).toThrow(RangeError);
      expect(file.env()).toEqual({ LD_PRELOAD: shim, FENCEPOST_CLOCK_FILE: file.path });
    } finally {
      file.close();
    }
  });
});

describe('redis-server under the shim', () => {
  let offset: ClockOffsetFile;
  let redis: Redis;

  beforeAll(async () => {
    offset = ClockOffsetFile.create(join(dir, 'redis.offset'), shim);
    const port = await freePort();
    await start(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { env: offset.env(), ready: /Ready to accept connections/ },
    );
    redis = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    redis?.disconnect();
    offset?.close();
  });

  it('expires a 60 s key at once when its clock jumps 120 s forward, and keeps keys without TTL', async () => {
    await redis.set('lock', 'owner-1', 'PX', 60_000);
    await redis.set('balance', '100');
    const before = await redisTimeMs(redis);
    expect(await redis.pttl('lock')).toBeGreaterThan(50_000);

    offset.set(JUMP_MS);
    expect(await redis.pttl('lock')).toBe(-2);
    expect(await redis.get('lock')).toBeNull();
    expect(await redis.get('balance')).toBe('100');
    const after = await redisTimeMs(redis);
    expect(after - before).toBeGreaterThan(JUMP_MS - TOLERANCE_MS);
    expect(after - before).toBeLessThan(JUMP_MS + TOLERANCE_MS);

    offset.set(0);
    expect(Math.abs((await redisTimeMs(redis)) - Date.now())).toBeLessThan(TOLERANCE_MS);
    // A key set after the clock came back lives its full TTL again.
    await redis.set('lock', 'owner-2', 'PX', 60_000);
    expect(await redis.pttl('lock')).toBeGreaterThan(50_000);
  });
});

describe('a Node process under the shim', () => {
  let offset: ClockOffsetFile;
  let child: Sampler;

  beforeAll(async () => {
    offset = ClockOffsetFile.create(join(dir, 'node.offset'), shim);
    offset.set(JUMP_MS);
    const script =
      "require('readline').createInterface({ input: process.stdin }).on('line', () => " +
      'console.log(JSON.stringify({ wall: Date.now(), mono: performance.now() })));';
    child = await Sampler.spawn(process.execPath, ['--input-type=commonjs', '-e', script], offset.env());
  });

  afterAll(() => offset?.close());

  it('sees Date.now() shifted from its first clock read, and follows changes without a restart', async () => {
    expect(Math.abs((await child.skewMs()) - JUMP_MS)).toBeLessThan(TOLERANCE_MS);
    offset.set(-JUMP_MS);
    expect(Math.abs((await child.skewMs()) + JUMP_MS)).toBeLessThan(TOLERANCE_MS);
    offset.set(0);
    expect(Math.abs(await child.skewMs())).toBeLessThan(TOLERANCE_MS);
  });

  it('leaves performance.now() monotonic and unshifted', async () => {
    offset.set(0);
    const t0 = performance.now();
    const s0 = await child.sample();
    offset.set(JUMP_MS);
    const s1 = await child.sample();
    offset.set(-JUMP_MS);
    const s2 = await child.sample();
    const elapsed = performance.now() - t0;

    expect(s1.wall - s0.wall).toBeGreaterThan(JUMP_MS - TOLERANCE_MS);
    expect(s2.wall - s1.wall).toBeLessThan(-2 * JUMP_MS + TOLERANCE_MS);
    expect(s1.mono).toBeGreaterThanOrEqual(s0.mono);
    expect(s2.mono).toBeGreaterThanOrEqual(s1.mono);
    expect(s2.mono - s0.mono).toBeLessThanOrEqual(elapsed);
    offset.set(0);
  });
});

describe('a JVM under the shim', () => {
  let offset: ClockOffsetFile;
  let child: Sampler;

  beforeAll(async () => {
    offset = ClockOffsetFile.create(join(dir, 'jvm.offset'), shim);
    const src = join(dir, 'ClockSample.java');
    writeFileSync(
      src,
      `import java.io.*;
public class ClockSample {
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    while (in.readLine() != null) {
      System.out.println("{\\"wall\\":" + System.currentTimeMillis() + ",\\"mono\\":" + System.nanoTime() / 1e6 + "}");
      System.out.flush();
    }
  }
}
`,
    );
    child = await Sampler.spawn('java', [src], offset.env());
  });

  afterAll(() => offset?.close());

  it('shifts currentTimeMillis (what ZooKeeper stamps with) but not nanoTime (what its sessions expire by)', async () => {
    const s0 = await child.sample();
    expect(Math.abs(await child.skewMs())).toBeLessThan(TOLERANCE_MS);
    offset.set(JUMP_MS);
    expect(Math.abs((await child.skewMs()) - JUMP_MS)).toBeLessThan(TOLERANCE_MS);
    const s1 = await child.sample();
    expect(s1.mono - s0.mono).toBeGreaterThanOrEqual(0);
    expect(s1.mono - s0.mono).toBeLessThan(JUMP_MS / 2);
    offset.set(0);
  });
});

describe("a JVM's timed waits under a rate (what a ZooKeeper server's pings and session checks wait by)", () => {
  const SLEEP_MS = 250; // each Thread.sleep or Object.wait, in the JVM's own time

  it('last their time in its clock at r = 2 and r = 0.5, not the drift more (Thread.sleep and Object.wait)', async () => {
    const file = ClockOffsetFile.create(join(dir, 'jvm-waits.clock'), shim);
    const src = join(dir, 'TimedWaits.java');
    writeFileSync(
      src,
      `import java.io.*;
public class TimedWaits {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    Object lock = new Object();
    String line;
    while ((line = in.readLine()) != null) {
      int n = Integer.parseInt(line.trim());
      for (int i = 0; i < n; i++) {
        if (i % 2 == 0) Thread.sleep(${SLEEP_MS});
        else synchronized (lock) { lock.wait(${SLEEP_MS}); }
      }
      System.out.println("{\\"wall\\":0,\\"mono\\":" + System.nanoTime() / 1e6 + "}");
      System.out.flush();
    }
  }
}
`,
    );
    try {
      const child = await Sampler.spawn('java', ['-XX:+UseSerialGC', src], file.env(), '0');
      // Before the shim read their deadlines on the fake clock, each wait at r = 2 overslept by the drift gathered
      // so far: 8 × 250 ms took 0.5 + 1 + 2 + … s, over a minute real.
      for (const [rate, n] of [
        [2, 8],
        [0.5, 4],
      ] as const) {
        file.setRate({ clocks: ['realtime', 'monotonic'], rate, scope: 'process' });
        const before = file.counters();
        const t0 = performance.now();
        await child.sample(String(n));
        const realMs = performance.now() - t0;
        const expected = (n * SLEEP_MS) / rate;
        console.log(
          `jvm waits: ${n} × ${SLEEP_MS} ms at r = ${rate} took ${Math.round(realMs)} ms real (${expected} expected)`,
        );
        expect(realMs).toBeGreaterThanOrEqual(expected - 20);
        expect(realMs).toBeLessThan(expected + n * SLEEP_MS);
        const after = file.counters();
        expect(after.waits).toBeGreaterThan(before.waits);
        // A JVM whose clock is behind used to spin on deadlines already past (1.27 M reads for one 300 ms sleep).
        expect(Number(after.reads - before.reads)).toBeLessThan(100_000);
      }
    } finally {
      file.setRate({ clocks: ['realtime', 'monotonic'], rate: 1, scope: 'wall' });
      file.close();
    }
  });
});

describe('Postgres under the shim', () => {
  let offset: ClockOffsetFile;
  let client: pg.Client;

  beforeAll(async () => {
    const bin = postgresBinDir();
    const data = join(dir, 'pgdata');
    mkdirSync(data);
    // initdb and postgres refuse to run as root.
    const user = process.getuid?.() === 0 ? postgresUser() : undefined;
    if (user) chownSync(data, user.uid, user.gid);
    execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], {
      ...user,
      stdio: 'pipe',
    });
    offset = ClockOffsetFile.create(join(dir, 'postgres.offset'), shim);
    const port = await freePort();
    await start(
      join(bin, 'postgres'),
      ['-D', data, '-p', String(port), '-k', data, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
      { env: offset.env(), ready: /ready to accept connections/, ...user },
    );
    client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    offset?.close();
  });

  it('moves clock_timestamp() in an already-running backend', async () => {
    const now = async () => {
      const { rows } = await client.query<{ ms: string }>('SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms');
      return Number(rows[0].ms) - Date.now();
    };
    expect(Math.abs(await now())).toBeLessThan(TOLERANCE_MS);
    offset.set(JUMP_MS);
    expect(Math.abs((await now()) - JUMP_MS)).toBeLessThan(TOLERANCE_MS);
    offset.set(0);
    expect(Math.abs(await now())).toBeLessThan(TOLERANCE_MS);
  });
});

// ---- helpers -------------------------------------------------------------------------------------

interface Sample {
  wall: number;
  mono: number;
}

/** A child that prints one JSON clock sample per line it reads. */
class Sampler {
  private readonly waiting: Array<(line: string) => void> = [];

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.waiting.shift()?.(line));
  }

  static async spawn(cmd: string, args: string[], env: Record<string, string>, line = ''): Promise<Sampler> {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    const sampler = new Sampler(child);
    await sampler.sample(line); // the first answer means the runtime is up (the JVM takes a while)
    return sampler;
  }

  /** One sample; `line` is what the child reads first (an empty line for the clock samplers). */
  sample(line = ''): Promise<Sample> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no clock sample from ${this.child.spawnfile} in 30 s`)),
        SAMPLE_DEADLINE_MS,
      );
      this.waiting.push((line) => {
        clearTimeout(timer);
        resolvePromise(JSON.parse(line) as Sample);
      });
      this.child.stdin!.write(`${line}\n`);
    });
  }

  /** The child's wall clock minus ours, at the midpoint of the round trip. */
  async skewMs(): Promise<number> {
    const before = Date.now();
    const { wall } = await this.sample();
    return wall - (before + Date.now()) / 2;
  }
}

async function redisTimeMs(redis: Redis): Promise<number> {
  const [sec, usec] = await redis.time();
  return Number(sec) * 1000 + Number(usec) / 1000;
}

async function start(
  cmd: string,
  args: string[],
  opts: { env: Record<string, string>; ready: RegExp; uid?: number; gid?: number },
): Promise<ChildProcess> {
  const child = spawn(cmd, args, {
    env: { ...process.env, ...opts.env },
    uid: opts.uid,
    gid: opts.gid,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  await new Promise<void>((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${cmd} not ready after 20 s; output:\n${output.slice(-2000)}`)),
      READY_DEADLINE_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (opts.ready.test(output)) {
        clearTimeout(timer);
        resolvePromise();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited (${code ?? signal}) before it was ready; output:\n${output.slice(-2000)}`));
    });
  });
  return child;
}

/** SIGINT is the fast shutdown for postgres and a clean one for the rest; SIGKILL if that hangs. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(killer);
      resolvePromise();
    });
    child.kill('SIGINT');
  });
}

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no postgres under ${root}/<version>/bin; install postgresql`);
  return join(root, versions[0], 'bin');
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
