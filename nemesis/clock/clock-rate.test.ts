import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.ts';
import { ClockBoard } from './clock-board.ts';
import { ClockOffsetFile, buildClockShim } from './clock-shim.ts';
import { AT, RECORD_BYTES, decodeSeq, encodeSeq } from './clock-record.ts';

/**
 * Probes that a rate written into a clock record reaches a real process through the shim: a C program's
 * CLOCK_REALTIME and CLOCK_MONOTONIC run at the rate, a stretched usleep and a Node setTimeout last their time in
 * the process's clock, and the record's counters grow. No server: the children are a few-line C program and Node.
 *
 * Timing on a busy 2-core machine (shared with other work): only what load cannot fake is asserted. A slope is
 * measured over INTERVAL_MS of the parent's own unshimmed clock and bracketed by the two round trips (the child read
 * its clocks somewhere inside each), so a stall widens the bracket instead of moving the slope: the rate must lie
 * within ±5 % of the bracket. A scaled wait is held to its lower bound (a stall only lengthens it) and to an upper
 * bound a whole unscaled wait away: the figures themselves are printed (issue 47 asks 2000 ± 200 ms of the Node
 * child; seen here 2000–2002 ms).
 */
const INTERVAL_MS = 1_000; // the real interval a slope is measured over (the time itself is under test)
const SLOPE_TOLERANCE = 0.05;
const NODE_TIMER_MS = 1_000; // the child's setTimeout, in its own (slowed) time
const ANSWER_DEADLINE_MS = 15_000;
const NS_PER_MS = 1_000_000n;
const RACE_READS = 2_000_000; // about a second of clock reads through the shim, each a syscall

const PROBE_C = `
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static long long ns(clockid_t id) { struct timespec t; clock_gettime(id, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(void) {
  char line[64];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin)) {
    if (line[0] == 'u') usleep((useconds_t)atol(line + 1));
    if (line[0] == 'm') { /* a tight loop of monotonic reads: how often it stepped back, and its largest step */
      long long n = atoll(line + 1), back = 0, maxstep = 0, last = ns(CLOCK_MONOTONIC);
      for (long long i = 0; i < n; i++) {
        long long now = ns(i % 2 ? CLOCK_MONOTONIC : CLOCK_MONOTONIC_COARSE);
        if (now < last) back++;
        if (now - last > maxstep) maxstep = now - last;
        last = now;
      }
      printf("%lld %lld\\n", back, maxstep);
      continue;
    }
    printf("%lld %lld %lld\\n", ns(CLOCK_REALTIME), ns(CLOCK_MONOTONIC), ns(CLOCK_MONOTONIC_COARSE));
  }
  return 0;
}
`;

let dir: string;
let shim: string;
let probeBin: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fencepost-clock-rate-'));
  shim = await buildClockShim(join(dir, 'build'));
  writeFileSync(join(dir, 'probe.c'), PROBE_C);
  probeBin = join(dir, 'probe');
  execFileSync('cc', ['-O2', '-o', probeBin, join(dir, 'probe.c')]);
});

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A child that answers each line it reads with one line. */
class LineChild {
  private readonly waiting: Array<(line: string) => void> = [];
  constructor(readonly child: ChildProcess) {
    children.push(child);
    createInterface({ input: child.stdout! }).on('line', (line) => this.waiting.shift()?.(line));
  }

  ask(line: string): Promise<string> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to "${line}" in 15 s`)), ANSWER_DEADLINE_MS);
      this.waiting.push((answer) => {
        clearTimeout(timer);
        resolvePromise(answer);
      });
      this.child.stdin!.write(`${line}\n`);
    });
  }
}

interface ProbeSample {
  realtimeNs: bigint;
  monoNs: bigint;
  coarseNs: bigint;
  /** The parent's own monotonic clock at the midpoint of the round trip. */
  parentNs: bigint;
  /** The parent's clock when it asked and when the answer came: the child read its clocks in between. */
  sentNs: bigint;
  gotNs: bigint;
}

async function sample(probe: LineChild, line = 's'): Promise<ProbeSample> {
  const sentNs = process.hrtime.bigint();
  const [realtimeNs, monoNs, coarseNs] = (await probe.ask(line)).split(' ').map(BigInt);
  const gotNs = process.hrtime.bigint();
  return { realtimeNs, monoNs, coarseNs, parentNs: (sentNs + gotNs) / 2n, sentNs, gotNs };
}

/** The slope a fake clock ran at between two samples, bracketed: [over the longest real span, over the shortest]. */
type Bracket = [low: number, high: number];

function bracket(a: ProbeSample, b: ProbeSample, key: 'realtimeNs' | 'monoNs'): Bracket {
  const moved = Number(b[key] - a[key]);
  return [moved / Number(b.gotNs - a.sentNs), moved / Math.max(1, Number(b.sentNs - a.gotNs))];
}

/** Whether a bracketed slope is consistent with `rate` within the tolerance. */
function agrees([low, high]: Bracket, rate: number): boolean {
  return low <= rate * (1 + SLOPE_TOLERANCE) && high >= rate * (1 - SLOPE_TOLERANCE);
}

/** Waits (for a state: the parent's clock having moved on) and returns both clocks' slopes over that time. */
async function slopes(probe: LineChild): Promise<{ realtime: Bracket; monotonic: Bracket }> {
  const a = await sample(probe);
  await eventually(
    'the real interval to pass',
    () => process.hrtime.bigint() - a.parentNs >= 1_000_000n * BigInt(INTERVAL_MS),
    2 * INTERVAL_MS,
  );
  const b = await sample(probe);
  return { realtime: bracket(a, b, 'realtimeNs'), monotonic: bracket(a, b, 'monoNs') };
}

describe('a C process under a rate', () => {
  let file: ClockOffsetFile;
  let probe: LineChild;

  beforeAll(async () => {
    file = ClockOffsetFile.create(join(dir, 'probe.clock'), shim);
    probe = new LineChild(
      spawn(probeBin, [], { env: { ...process.env, ...file.env() }, stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    await probe.ask('s');
  });

  afterAll(() => file?.close());

  it('runs both clocks at r = 2 and r = 0.5 within ±5 %, joined without a jump, and counts the reads', async () => {
    const readsBefore = file.counters().reads;
    const measured: Record<string, { realtime: Bracket; monotonic: Bracket }> = {};
    for (const rate of [2, 0.5]) {
      const before = await sample(probe);
      const state = file.setRate({ clocks: ['realtime', 'monotonic'], rate, scope: 'process' });
      expect(state).toMatchObject({ scope: 'process', rates: { realtime: rate, monotonic: rate } });
      const after = await sample(probe);
      // No jump at the change: the fake clocks moved by about the real round trip times a rate, never backwards.
      const realGapNs = after.parentNs - before.parentNs;
      for (const key of ['monoNs', 'coarseNs', 'realtimeNs'] as const) {
        const moved = after[key] - before[key];
        expect(moved, key).toBeGreaterThanOrEqual(0n);
        expect(moved, key).toBeLessThan(3n * realGapNs + 20n * NS_PER_MS);
      }
      measured[rate] = await slopes(probe);
      expect(agrees(measured[rate].realtime, rate), `realtime at ${rate}: ${measured[rate].realtime}`).toBe(true);
      expect(agrees(measured[rate].monotonic, rate), `monotonic at ${rate}: ${measured[rate].monotonic}`).toBe(true);
    }
    console.log(`clock-rate probe slopes: ${JSON.stringify(measured)}`);
    expect(file.counters().reads).toBeGreaterThan(readsBefore);
  });

  it('freezes at r = 0, and keeps the monotonic clock where it is when the rates go back to 1', async () => {
    const frozen = file.setRate({ clocks: ['realtime', 'monotonic'], rate: 0, scope: 'process' });
    const a = await sample(probe);
    await eventually('time to pass', () => process.hrtime.bigint() - a.parentNs >= 200n * NS_PER_MS, 2_000);
    const b = await sample(probe);
    expect(b.monoNs).toBe(a.monoNs);
    expect(b.coarseNs).toBe(a.coarseNs);
    const state = file.resetRates();
    expect(state).toMatchObject({ scope: 'wall', rates: { realtime: 1, monotonic: 1 }, driftMs: { realtime: 0 } });
    // It fell behind by the time it stood still (≥ 200 ms), and keeps that: a monotonic clock never steps back.
    expect(state.driftMs.monotonic).toBeLessThanOrEqual(frozen.driftMs.monotonic - 200);
    const c = await sample(probe);
    expect(c.monoNs).toBeGreaterThanOrEqual(b.monoNs);
    // The wall clock is real again (its drift went back to 0, as an offset reset does).
    expect(Math.abs(Number(c.realtimeNs / NS_PER_MS) - Date.now())).toBeLessThan(1_000);
  });

  it('shortens a usleep under scope process: 2000 ms of its time at r = 2 is about 1000 ms real', async () => {
    file.setRate({ clocks: ['realtime', 'monotonic'], rate: 2, scope: 'process' });
    const waitsBefore = file.counters().waits;
    const t0 = process.hrtime.bigint();
    await probe.ask('u2000000');
    const realMs = Number((process.hrtime.bigint() - t0) / NS_PER_MS);
    console.log(`clock-rate probe: usleep(2000 ms) at r = 2 took ${realMs} ms real`);
    // Never shorter than its scaled time; and shorter than the unscaled 2000 ms by a margin no stall here reaches.
    expect(realMs).toBeGreaterThanOrEqual(990);
    expect(realMs).toBeLessThan(1_800);
    expect(file.counters().waits).toBeGreaterThan(waitsBefore);
    file.resetRates();
  });

  it('never steps the monotonic clock back while the harness changes rates under a reader in a tight loop', async () => {
    const rates = [0, 3, 0.5, 2, 0, 1, 0.25];
    const answer = probe.ask(`m${RACE_READS}`);
    let done = false;
    void answer.finally(() => (done = true));
    let changes = 0;
    while (!done) {
      file.setRate({ clocks: ['realtime', 'monotonic'], rate: rates[changes++ % rates.length], scope: 'process' });
      await new Promise((resolvePromise) => setImmediate(resolvePromise));
    }
    const [backSteps, maxStepNs] = (await answer).split(' ').map(Number);
    console.log(`clock-rate race: ${changes} rate changes during ${RACE_READS} reads; largest step ${maxStepNs} ns`);
    expect(changes).toBeGreaterThan(10);
    expect(backSteps).toBe(0);
    file.resetRates();
  });

  it('waits for a writer that keeps the record open for half a second, then reads what it wrote', async () => {
    // The harness descheduled between its seq writes, as on a loaded machine: a reader that gave up after a count of
    // yields (about 50 ms here) read a torn record; it must wait for the writer, however long (2 s bound: a dead one).
    const fd = openSync(join(dir, 'probe.clock'), 'r+');
    const at = (field: keyof typeof AT) => AT[field];
    const read = (): bigint => {
      const b = Buffer.alloc(RECORD_BYTES);
      readSync(fd, b, 0, RECORD_BYTES, 0);
      return decodeSeq(b);
    };
    const offset = (ns: bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(ns);
      writeSync(fd, b, 0, 8, at('offsetNs'));
    };
    try {
      const odd = read() | 1n;
      writeSync(fd, encodeSeq(odd), 0, 8, at('seq'));
      offset(3_600_000n * NS_PER_MS);
      const heldFrom = process.hrtime.bigint();
      let answered = false;
      const pending = probe.ask('s').then((line) => ((answered = true), line));
      await eventually(
        'half a second with the record open',
        () => process.hrtime.bigint() - heldFrom >= 500n * NS_PER_MS,
        2_000,
      );
      expect(answered).toBe(false);
      writeSync(fd, encodeSeq(odd + 1n), 0, 8, at('seq'));
      const realtimeNs = BigInt((await pending).split(' ')[0]);
      expect(Number(realtimeNs / NS_PER_MS) - Date.now()).toBeGreaterThan(3_599_000);
    } finally {
      const odd = read() | 1n;
      writeSync(fd, encodeSeq(odd), 0, 8, at('seq'));
      offset(0n);
      writeSync(fd, encodeSeq(odd + 1n), 0, 8, at('seq'));
      closeSync(fd);
    }
  });

  it('refuses a negative rate, and a monotonic rate under scope wall', () => {
    expect(() => file.setRate({ clocks: ['realtime'], rate: -1, scope: 'wall' })).toThrow(RangeError);
    expect(() => file.setRate({ clocks: ['monotonic'], rate: 2, scope: 'wall' })).toThrow(/use scope process/);
    expect(file.state().rates).toEqual({ realtime: 1, monotonic: 1 });
  });
});

describe('an old offset-only file (8 bytes)', () => {
  it('still moves the wall clock by its offset, and leaves the monotonic clock alone', async () => {
    const path = join(dir, 'legacy.offset');
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(120_000n * NS_PER_MS); // the layout before rates: one native int64 (this is x86-64/arm64)
    writeFileSync(path, buf);
    const probe = new LineChild(
      spawn(probeBin, [], {
        env: { ...process.env, FENCEPOST_CLOCK_FILE: path, LD_PRELOAD: shim },
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const s = await sample(probe);
    expect(Math.abs(Number(s.realtimeNs / NS_PER_MS) - Date.now() - 120_000)).toBeLessThan(1_000);
    expect(Math.abs(Number((s.monoNs - s.parentNs) / NS_PER_MS))).toBeLessThan(1_000);
  });
});

describe('a Node process under scope process', () => {
  it('fires setTimeout(1000) after about 2000 ms real at r = 0.5, and the counters grew', async () => {
    const file = ClockOffsetFile.create(join(dir, 'node.clock'), shim);
    try {
      const script =
        "require('readline').createInterface({ input: process.stdin }).on('line', (ms) => " +
        "setTimeout(() => console.log('fired'), Number(ms)));";
      const child = new LineChild(
        spawn(process.execPath, ['--input-type=commonjs', '-e', script], {
          env: { ...process.env, ...file.env() },
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      await child.ask('0'); // up and answering
      const before = file.counters();
      file.setRate({ clocks: ['realtime', 'monotonic'], rate: 0.5, scope: 'process' });
      const t0 = process.hrtime.bigint();
      await child.ask(String(NODE_TIMER_MS));
      const realMs = Number((process.hrtime.bigint() - t0) / NS_PER_MS);
      console.log(`clock-rate node child: setTimeout(${NODE_TIMER_MS}) at r = 0.5 fired after ${realMs} ms real`);
      // Never before its scaled 2000 ms (less 1 %: libuv's clock is read in whole ms); a stall only makes it later, so
      // the upper bound is a whole unscaled timer away from the lower one.
      expect(realMs).toBeGreaterThanOrEqual(NODE_TIMER_MS / 0.5 - 20);
      expect(realMs).toBeLessThan(NODE_TIMER_MS / 0.5 + NODE_TIMER_MS);
      const after = file.counters();
      expect(after.reads).toBeGreaterThan(before.reads);
      expect(after.waits).toBeGreaterThan(before.waits);
    } finally {
      file.close();
    }
  });
});

describe("a Node process's own monotonic stamps, mapped back by its record (how the history journals a client's ops)", () => {
  it('land inside the real round trip they were taken in, before, during and after r = 0.5 — unmapped they do not', async () => {
    const file = ClockOffsetFile.create(join(dir, 'stamps.clock'), shim);
    try {
      const script =
        "require('readline').createInterface({ input: process.stdin }).on('line', () => " +
        'console.log(process.hrtime.bigint().toString()));';
      const child = new LineChild(
        spawn(process.execPath, ['--input-type=commonjs', '-e', script], {
          env: { ...process.env, ...file.env() },
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      const stamp = async () => {
        const sentNs = process.hrtime.bigint();
        const fake = BigInt(await child.ask('t'));
        return { sentNs, gotNs: process.hrtime.bigint(), fake, real: file.realMonotonic(fake) };
      };
      const inside = (s: Awaited<ReturnType<typeof stamp>>, ns: bigint) => ns >= s.sentNs && ns <= s.gotNs;
      const before = await stamp();
      expect(inside(before, before.real)).toBe(true);
      file.setRate({ clocks: ['realtime', 'monotonic'], rate: 0.5, scope: 'process' });
      const t0 = process.hrtime.bigint();
      await eventually('300 ms real to pass', () => process.hrtime.bigint() - t0 >= 300n * NS_PER_MS, 2_000);
      const during = await stamp();
      expect(inside(during, during.real)).toBe(true);
      file.setRate({ clocks: ['realtime', 'monotonic'], rate: 1, scope: 'wall' });
      const after = await stamp();
      expect(inside(after, after.real)).toBe(true);
      // The bug the mapping fixes: the raw stamp is ≥ 150 ms early — it would sit before ops that happened first.
      expect(after.gotNs - after.fake).toBeGreaterThanOrEqual(150n * NS_PER_MS);
      expect(inside(after, after.fake)).toBe(false);
    } finally {
      file.close();
    }
  });
});

describe('ClockBoard with rates', () => {
  it('sets a rate per process, says what it set, and resets rates with the offsets', async () => {
    const board = await ClockBoard.create(join(dir, 'run-clock'));
    try {
      board.env('client-0');
      board.env('redis[0]');
      expect(board.counters('client-0')).toEqual({ reads: 0n, waits: 0n });
      expect(board.state('nobody')).toBeUndefined();
      const state = board.setRate('client-0', { clocks: ['realtime'], rate: 0.5, scope: 'wall' });
      expect(state).toMatchObject({ offsetMs: 0, scope: 'wall', rates: { realtime: 0.5, monotonic: 1 } });
      board.set('redis[0]', 30_000);
      expect(board.resetAll()).toEqual({ 'client-0': 0, 'redis[0]': 30_000 });
      expect(board.state('client-0')).toMatchObject({ scope: 'wall', rates: { realtime: 1, monotonic: 1 } });
      expect(board.resetAll()).toEqual({});
    } finally {
      board.dispose();
    }
  });
});
