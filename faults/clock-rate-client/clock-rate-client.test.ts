import { describe, expect, it } from 'vitest';
import type { Op } from '../../history/op.ts';
import type { Evidence } from '../evidence.ts';
import { clientClockUnreachable, clockRateClient } from './inject.ts';
import { rateNotReached, renewalLate } from './judge.ts';
import { clockSlopes } from './slope.ts';

/** clock-rate-client on literal records: its proof, its story's renewal step, where it refuses, its slope arithmetic. */

const ev = (end: Partial<NonNullable<Evidence<'clock-rate-client'>['end']>> | undefined, rate = 0.25) =>
  ({
    start: { rate, clocks: ['realtime', 'monotonic'], scope: 'process', ttlMs: 2000 },
    end: end && { monoSlope: 0.2503, wallSlope: 0.248, probeMs: 512, reads: 9120, waits: 31, ...end },
  }) as unknown as Evidence<'clock-rate-client'>;

describe('clock-rate-client: a shot proves the rate reached the client', () => {
  it('reads through the shim and both of its own clocks within ±5 % of the rate: reached', () => {
    expect(rateNotReached({ ev: ev({}) })).toBeNull();
    expect(rateNotReached({ ev: ev({ monoSlope: 1.97, wallSlope: 2.04 }, 2) })).toBeNull();
  });

  it('no read through the shim is a rate that never reached the process, whatever the slopes', () => {
    expect(rateNotReached({ ev: ev({ reads: 0 }) })).toBe(
      'the client read no clock through the shim while the rate held: the rate never reached it',
    );
  });

  it('a clock off by more than 5 %, or a client that did not answer, is no proof', () => {
    expect(rateNotReached({ ev: ev({ monoSlope: 1 }) })).toBe(
      "the client's monotonic clock ran at 1 ms per ms over 512 ms, not 0.25 ± 5 %",
    );
    expect(rateNotReached({ ev: ev({ wallSlope: 0.2 }) })).toBe(
      "the client's wall clock ran at 0.2 ms per ms over 512 ms, not 0.25 ± 5 %",
    );
    expect(rateNotReached({ ev: ev({ monoSlope: undefined }) })).toBe(
      'the client did not answer two clock requests: no monotonic slope to prove the rate by',
    );
    expect(rateNotReached({ ev: ev(undefined) })).toBe('the history ended before the rate was measured');
  });
});

const MS = 1_000_000;
const WD = 100_003; // p3's watchdog
let index = 0;
const op = (process: number, f: string, type: Op['type'], ms: number): Op => ({
  index: index++,
  time: ms * MS,
  process,
  type,
  f,
  value: { account: 1 },
});

/** p3 acquired at 0 and read at 100 ms; struck at 120 ms; its watchdog renews every TTL/3 = 667 ms of its own time. */
function holder(renewals: () => Op[]) {
  index = 0;
  const own = [op(3, 'acquire', 'invoke', 0), op(3, 'acquire', 'ok', 5), op(3, 'read', 'invoke', 90)];
  const read = op(3, 'read', 'ok', 100);
  own.push(read);
  const a = {
    aim: { process: 3, account: 1, readIndex: read.index, atIndex: 9 },
    own,
    read,
    strikeNs: 120 * MS,
    who: 'p3',
  };
  return {
    a,
    byProcess: new Map<number, Op[]>([
      [3, own],
      [WD, renewals()],
    ]),
  };
}

describe("clock-rate-client's story: the holder's renewal arrived after the key expired", () => {
  it('done when a renewal after the strike went out a TTL or more after the last success', () => {
    // r = 0.25: the 567 ms of its timer left at the strike lasted 2268 ms real.
    const { a, byProcess } = holder(() => [op(WD, 'renew', 'invoke', 2388), op(WD, 'renew', 'fail', 2390)]);
    expect(renewalLate(byProcess, a, 2000)).toEqual({
      status: 'done',
      evidence:
        "p3's renewal #4 went out at 2.39 s, 2.38 s after its last success #1 ≥ the TTL (2.00 s): the key had expired",
    });
  });

  it('looks past a first renewal nearly due at the strike to the next, timed wholly on the slowed clock', () => {
    const { a, byProcess } = holder(() => [
      op(WD, 'renew', 'invoke', 670),
      op(WD, 'renew', 'ok', 672),
      op(WD, 'renew', 'invoke', 3340),
    ]);
    expect(renewalLate(byProcess, a, 2000).evidence).toBe(
      "p3's renewal #6 went out at 3.34 s, 2.67 s after its last success #5 ≥ the TTL (2.00 s): the key had expired",
    );
  });

  it('missing when every renewal came inside the TTL, or the history shows none', () => {
    const { a, byProcess } = holder(() => [op(WD, 'renew', 'invoke', 670), op(WD, 'renew', 'ok', 672)]);
    expect(renewalLate(byProcess, a, 2000)).toEqual({
      status: 'missing',
      evidence:
        "p3's renewal #4 went out at 0.67 s, 665 ms after its last success #1, inside the TTL (2.00 s): its renewals arrived in time",
    });
    const none = holder(() => []);
    expect(renewalLate(none.byProcess, none.a, 2000).evidence).toBe(
      "p3 sent no renewal after the strike that the history shows (no --watchdog; a library's own refresh is not recorded)",
    );
  });
});

describe('clock-rate-client: where the shim reaches a client', () => {
  it('acts on locks that run inside the Node client and take --watchdog', () => {
    for (const lock of ['redis', 'redlock', 'redlock-npm', 'redlock-v4', './my-lock.ts'])
      expect(clientClockUnreachable(lock), lock).toBeNull();
  });

  it('refuses a lock that takes no --watchdog: no renewal of it is in the history to show late', () => {
    for (const lock of ['etcd', 'zookeeper', 'postgres', 'redis-semaphore', 'sql-lease'])
      expect(clientClockUnreachable(lock), lock).toBe(
        `--lock=${lock} takes no --watchdog: clock-rate-client's story is a renewal the slowed holder sends after its lease ran out, and this lock has none in the history to show late (it renews itself, or never)`,
      );
  });

  it("refuses etcd's Go client: the shim cannot reach a Go binary", () => {
    expect(clockRateClient.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd-go')).toBe(
      "--lock=etcd-go's client is a Go binary that reads the clock through the vDSO, not libc: the LD_PRELOAD clock shim moves neither its clocks nor its timers, so clock-rate-client cannot reach it",
    );
  });

  it('refuses the locks in a process of their own (Python, Java, a manifest, a program): no clock request to prove by', () => {
    expect(clientClockUnreachable('redis-py')).toMatch(/^--lock=redis-py runs its lock in a Python process of its own/);
    expect(clientClockUnreachable('kazoo')).toMatch(/in a Python process of its own/);
    expect(clientClockUnreachable('curator')).toMatch(
      /in a Java process of its own.*futex waits the shim does not scale/,
    );
    expect(clientClockUnreachable('my-lock.json')).toMatch(
      /^--lock=my-lock.json runs its lock in a process of its own/,
    );
    expect(clientClockUnreachable('exec:./lock')).toMatch(/answers no clock request/);
  });
});

describe("clock-rate-client: slopes from the client's own readings", () => {
  const reading = (askedAtMs: number, answeredAtMs: number, wallMs: number, monoMs: number) => ({
    askedAtMs,
    answeredAtMs,
    wallMs,
    monoNs: BigInt(monoMs) * 1_000_000n,
  });

  it("places each reading at its round trip's middle and divides by the harness time between them", () => {
    expect(clockSlopes(reading(1000, 1002, 5_000, 70_000), reading(1501, 1503, 5_125, 70_125))).toEqual({
      monoSlope: 0.2495,
      wallSlope: 0.2495,
      probeMs: 501,
    });
  });

  it('none without two readings in order', () => {
    expect(clockSlopes(null, reading(1, 2, 3, 4))).toBeNull();
    expect(clockSlopes(reading(5, 6, 0, 0), reading(5, 6, 0, 0))).toBeNull();
  });
});
