import { describe, expect, it } from 'vitest';
import { History } from '../../history/history.ts';
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

/**
 * p3 acquired at 0 (ok at 5 ms) and read at 100 ms; struck at 120 ms; its watchdog renews every TTL/3 = 667 ms of its
 * own time. `after` are the ops after its read: its write, another client's grant.
 */
function holder(renewals: () => Op[], after: () => Op[] = () => []) {
  index = 0;
  const own = [op(3, 'acquire', 'invoke', 0), op(3, 'acquire', 'ok', 5), op(3, 'read', 'invoke', 90)];
  const read = op(3, 'read', 'ok', 100);
  own.push(read);
  const wd = renewals();
  const rest = after();
  own.push(...rest.filter((o) => o.process === 3));
  const a = {
    aim: { process: 3, account: 1, readIndex: read.index, atIndex: 9 },
    own,
    read,
    strikeNs: 120 * MS,
    who: 'p3',
  };
  const ops = [...own, ...wd, ...rest.filter((o) => o.process !== 3)].sort((x, y) => x.index - y.index);
  return {
    a,
    shot: {
      history: History.of(ops),
      byProcess: new Map<number, Op[]>([
        [3, own],
        [WD, wd],
      ]),
    },
  };
}

describe("clock-rate-client's story, with --watchdog: the holder's renewal arrived after the key expired", () => {
  it('done when a renewal after the strike went out a TTL or more after the last success', () => {
    // r = 0.25: the 567 ms of its timer left at the strike lasted 2268 ms real.
    const { a, shot } = holder(() => [op(WD, 'renew', 'invoke', 2388), op(WD, 'renew', 'fail', 2390)]);
    expect(renewalLate(shot, a, 2000)).toEqual({
      status: 'done',
      evidence:
        "p3's renewal #4 went out at 2.39 s, 2.38 s after its last success #1 ≥ the TTL (2.00 s): the key had expired",
    });
  });

  it('looks past a first renewal nearly due at the strike to the next, timed wholly on the slowed clock', () => {
    const { a, shot } = holder(() => [
      op(WD, 'renew', 'invoke', 670),
      op(WD, 'renew', 'ok', 672),
      op(WD, 'renew', 'invoke', 3340),
    ]);
    expect(renewalLate(shot, a, 2000, 'watchdog').evidence).toBe(
      "p3's renewal #6 went out at 3.34 s, 2.67 s after its last success #5 ≥ the TTL (2.00 s): the key had expired",
    );
  });

  it('missing when every renewal came inside the TTL of a section that ended inside it, or the history shows none', () => {
    const { a, shot } = holder(() => [op(WD, 'renew', 'invoke', 670), op(WD, 'renew', 'ok', 672)]);
    expect(renewalLate(shot, a, 2000)).toEqual({
      status: 'missing',
      evidence:
        "p3's renewal #4 went out at 0.67 s, 665 ms after its last success #1, inside the TTL (2.00 s): its renewals arrived in time",
    });
    const none = holder(() => []);
    expect(renewalLate(none.shot, none.a, 2000).evidence).toBe(
      'p3 sent no renewal after the strike that the history shows',
    );
  });

  it('held when its renewals came in time through a section that outlasted the TTL', () => {
    const { a, shot } = holder(
      () => [op(WD, 'renew', 'invoke', 1400), op(WD, 'renew', 'ok', 1402)],
      () => [op(3, 'write', 'invoke', 2205)],
    );
    expect(renewalLate(shot, a, 2000)).toEqual({
      status: 'held',
      evidence:
        "p3's renewal #4 went out at 1.40 s, 1.40 s after its last success #1, inside the TTL (2.00 s), and p3's write #6 went out at 2.21 s, 2.20 s after its grant #1 ≥ the TTL: its renewals kept the key",
    });
  });
});

describe("clock-rate-client's story without renewals in the history", () => {
  it('renewing nothing: done when its write went out a TTL or more after its grant', () => {
    // redlock-v4 at r = 0.5, think 0.7 × TTL: a 1.4 s section of its own time lasts 2.8 s real.
    const { a, shot } = holder(
      () => [],
      () => [op(3, 'write', 'invoke', 2900)],
    );
    expect(renewalLate(shot, a, 2000, 'nothing')).toEqual({
      status: 'done',
      evidence:
        "renewing nothing (no --watchdog), p3's write #4 went out at 2.90 s, 2.90 s after its grant #1 ≥ the TTL (2.00 s): the key had expired",
    });
  });

  it('renewing nothing: held when a section stretched to half the TTL or more still ended inside it; missing when shorter', () => {
    const stretched = holder(
      () => [],
      () => [op(3, 'write', 'invoke', 1514)],
    );
    expect(renewalLate(stretched.shot, stretched.a, 2000, 'nothing')).toEqual({
      status: 'held',
      evidence:
        "p3's write #4 went out at 1.51 s, 1.51 s after its grant #1, inside the TTL (2.00 s): the slowed clock did not carry its section past its lease",
    });
    const short = holder(
      () => [],
      () => [op(3, 'write', 'invoke', 205)],
    );
    expect(renewalLate(short.shot, short.a, 2000, 'nothing').status).toBe('missing');
  });

  it("renewing unseen: done when another client was granted inside the holder's section", () => {
    // redis-semaphore at r = 0.6, think 0.7 × TTL: the key expires at 2 s, before the overdue refresh and the write.
    const { a, shot } = holder(
      () => [],
      () => [op(5, 'acquire', 'invoke', 1500), op(5, 'acquire', 'ok', 2010), op(3, 'write', 'invoke', 2340)],
    );
    expect(renewalLate(shot, a, 2000, 'unseen')).toEqual({
      status: 'done',
      evidence:
        "p5 was granted account 1 (#5) at 2.01 s, 2.00 s after p3's grant #1, while p3 was inside its section: its own refresh, outside the history, had not kept the key",
    });
  });

  it('renewing unseen: held when the section outlasted the TTL and nobody else was granted', () => {
    const { a, shot } = holder(
      () => [],
      () => [op(5, 'acquire', 'invoke', 300), op(3, 'write', 'invoke', 2530)],
    );
    expect(renewalLate(shot, a, 2000, 'unseen')).toEqual({
      status: 'held',
      evidence:
        "p3's write #5 went out at 2.53 s, 2.52 s after its grant #1 ≥ the TTL (2.00 s), and no other client was granted meanwhile: its own refresh kept the key",
    });
  });
});

describe('clock-rate-client: where the shim reaches a client', () => {
  it('acts on locks that run inside the Node client, with or without --watchdog, self-refreshing ones too', () => {
    for (const lock of [
      'redis',
      'redlock',
      'redlock-npm',
      'redlock-v4',
      'redis-semaphore',
      'sql-lease',
      './my-lock.ts',
    ])
      expect(clientClockUnreachable(lock), lock).toBeNull();
  });

  it("refuses etcd's Go client: the shim cannot reach a Go binary", () => {
    expect(clockRateClient.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd-go')).toBe(
      "--lock=etcd-go's client is a Go binary that reads the clock through the vDSO, not libc: the LD_PRELOAD clock shim moves neither its clocks nor its timers, so clock-rate-client cannot reach it",
    );
  });

  // Lifting the --watchdog refusal (for redis-semaphore) let it run on locks with no lease at all, where its story can
  // never complete: refused again for those, by the row's own reason.
  it.each([
    ['postgres', "its lock is the row's version column, checked at the write: nothing expires"],
    ['advisory-lock', 'a session advisory lock lasts as long as its Postgres session'],
    ['advisory-xact-lock-pgbouncer', 'a transaction advisory lock lasts as long as its transaction'],
    ['none', 'it takes no lock at all'],
  ])('refuses --lock=%s: it holds no lease to outrun', (lock, why) => {
    expect(clientClockUnreachable(lock)).toBe(
      `--lock=${lock} holds no lease that ends by time (${why}): clock-rate-client's story is a slowed holder outrunning its lease, and there is none to outrun`,
    );
  });

  it('refuses the locks in a process of their own (Python, Java, a manifest, a program): no clock request to prove by', () => {
    expect(clientClockUnreachable('redis-py')).toMatch(/^--lock=redis-py runs its lock in a Python process of its own/);
    expect(clientClockUnreachable('kazoo')).toMatch(/in a Python process of its own/);
    expect(clientClockUnreachable('curator')).toMatch(/in a Java process of its own, which answers no clock request/);
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
