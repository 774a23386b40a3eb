import { describe, expect, it } from 'vitest';
import { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import type { Evidence } from '../evidence.ts';
import { clockRateWaiters, promptlyGranted } from './inject.ts';
import { leaseEarly, waitersNotReached } from './judge.ts';

/** clock-rate-waiters on literal records and histories: the proof the rate reached every waiter, and its story step. */

const ev = (end: Partial<NonNullable<Evidence<'clock-rate-waiters'>['end']>> | undefined, rate = 2) =>
  ({
    start: { rate, ttlMs: 2000, waiters: ['p1', 'p2'], aim: { struck: ['p1', 'p2'] } },
    end: end && {
      monoSlopes: { p1: 2.01, p2: 1.98 },
      wallSlopes: { p1: 2, p2: 2.02 },
      probeMs: { p1: 500, p2: 510 },
      reads: { p1: 120, p2: 98 },
      waits: { p1: 7, p2: 5 },
      ...end,
    },
  }) as unknown as Evidence<'clock-rate-waiters'>;

describe('clock-rate-waiters: a shot proves the rate reached every waiter', () => {
  it('reads through the shim and both slopes within ±5 % of the rate, for each waiter: reached', () => {
    expect(waitersNotReached({ ev: ev({}) })).toBeNull();
  });

  it('one waiter that read no clock, or whose clock ran off the rate, is a miss', () => {
    expect(waitersNotReached({ ev: ev({ reads: { p1: 120, p2: 0 } }) })).toBe(
      'waiter p2 read no clock through the shim while the rate held: the rate never reached it',
    );
    expect(waitersNotReached({ ev: ev({ wallSlopes: { p1: 1, p2: 2 } }) })).toBe(
      "waiter p1's wall clock ran at 1 ms per ms over 500 ms, not 2 ± 5 %",
    );
    expect(waitersNotReached({ ev: ev({ monoSlopes: { p1: 2 } }) })).toBe(
      'waiter p2 did not answer two clock requests: no monotonic slope to prove the rate by',
    );
    expect(waitersNotReached({ ev: ev(undefined) })).toBe('the history ended before the rate was measured');
  });
});

/** p3 acquired at 0 (ok at 5 ms) with a 2 s TTL, read at 10 ms; the waiters' clocks were struck at 20 ms. */
const MS = 1_000_000;
let index = 0;
const op = (process: number, f: string, type: Op['type'], ms: number): Op => ({
  index: index++,
  time: ms * MS,
  process,
  type,
  f,
  value: { account: 1 },
});

function shot(rest: () => Op[]) {
  index = 0;
  const own = [op(3, 'acquire', 'invoke', 0), op(3, 'acquire', 'ok', 5), op(3, 'read', 'invoke', 8)];
  const read = op(3, 'read', 'ok', 10);
  own.push(read);
  const more = rest();
  own.push(...more.filter((o) => o.process === 3));
  const wd = more.filter((o) => o.process === watchdogProcess(3));
  const ops = [...own, ...more.filter((o) => o.process !== 3)].sort((x, y) => x.index - y.index);
  return {
    records: {
      ev: ev({}),
      history: History.of(ops),
      byProcess: new Map<number, Op[]>([
        [3, own],
        [watchdogProcess(3), wd],
      ]),
    },
    a: { aim: { process: 3, account: 1, readIndex: read.index, atIndex: 4 }, own, read, strikeNs: 20 * MS, who: 'p3' },
  };
}

describe("clock-rate-waiters: a fast waiter took the holder's lease before it ran out by real time", () => {
  it('done: p1 was granted 1.2 s after the holder asked, inside its 2 s TTL, before the holder wrote', () => {
    const { records, a } = shot(() => [
      op(1, 'acquire', 'invoke', 900),
      op(1, 'acquire', 'ok', 1200),
      op(3, 'write', 'invoke', 1400),
    ]);
    expect(leaseEarly(records, a)).toEqual({
      status: 'done',
      evidence:
        "p1 was granted account 1 (#5) at 1.20 s, 1.20 s after p3's last acquire #0 was sent, inside its TTL of 2.00 s, while p3 was inside its section: its lease still ran by real time",
    });
  });

  it("counts the lease from the holder's last renewal: a grant 2.1 s after the acquire but 0.8 s after a renewal is early", () => {
    const wd = watchdogProcess(3);
    const { records, a } = shot(() => [
      op(wd, 'renew', 'invoke', 1300),
      op(wd, 'renew', 'ok', 1310),
      op(1, 'acquire', 'ok', 2100),
      op(3, 'write', 'invoke', 2200),
    ]);
    expect(leaseEarly(records, a)).toMatchObject({ status: 'done' });
    expect(leaseEarly(records, a).evidence).toMatch(/800 ms after p3's last renewal #4 was sent/);
  });

  it('held: nobody was granted before the holder wrote (the server ends the lease, at real speed)', () => {
    const { records, a } = shot(() => [op(3, 'write', 'invoke', 1400), op(1, 'acquire', 'ok', 1500)]);
    expect(leaseEarly(records, a)).toEqual({
      status: 'held',
      evidence: "no waiter was granted account 1 before p3's write #4 at 1.40 s, 1.38 s after the strike",
    });
  });

  it('missing: a grant a TTL or more after the holder asked may be the lease running out by real time', () => {
    const { records, a } = shot(() => [op(1, 'acquire', 'ok', 2050), op(3, 'write', 'invoke', 2400)]);
    expect(leaseEarly(records, a)).toEqual({
      status: 'missing',
      evidence:
        "p1 was granted account 1 (#4) at 2.05 s, 2.05 s after p3's last acquire #0 was sent, a TTL (2.00 s) or more after: its lease may have run out by real time",
    });
  });
});

describe('clock-rate-waiters: where it acts', () => {
  it('takes a lock inside the Node client; refuses Go, a process of its own, and a lock with no lease, saying why', () => {
    const servers = { redis: 0, etcd: 0, zk: 0 };
    expect(clockRateWaiters.refusal(servers, 'sql-lease')).toBeNull();
    expect(clockRateWaiters.refusal(servers, 'dynamodb-lock-client')).toBeNull();
    expect(clockRateWaiters.refusal({ ...servers, etcd: 3 }, 'etcd-go')).toMatch(
      /client is a Go binary .* so clock-rate-waiters cannot reach it$/,
    );
    expect(clockRateWaiters.refusal({ ...servers, zk: 3 }, 'curator')).toMatch(
      /in a Java process of its own, which answers no clock request .*clock-rate-waiters proves each shot/,
    );
    expect(clockRateWaiters.refusal(servers, 'advisory-lock')).toBe(
      "--lock=advisory-lock holds no lease that ends by time (a session advisory lock lasts as long as its Postgres session): clock-rate-waiters' story is a waiter whose own clock ends the holder's lease early, and there is no lease to end",
    );
  });
});

describe('the holder clock-rate-waiters aims at', () => {
  it("is one whose acquire was granted within a tenth of the TTL of being sent: its lease's start is pinned", () => {
    // Red before: any section was struck, and a holder whose acquire had waited 5-10 s in contention left the story's
    // lease-early step unprovable (sql-lease, 10 shots: 7 then 5 whole stories).
    const ms = 1e6;
    expect(promptlyGranted({ acquireSentTime: 0, acquireTime: 150 * ms }, 2000)).toBe(true);
    expect(promptlyGranted({ acquireSentTime: 0, acquireTime: 200 * ms }, 2000)).toBe(true);
    expect(promptlyGranted({ acquireSentTime: 0, acquireTime: 201 * ms }, 2000)).toBe(false);
    expect(promptlyGranted({ acquireSentTime: 0, acquireTime: 5000 * ms }, 4000)).toBe(false);
    expect(promptlyGranted({ acquireTime: 150 * ms }, 2000)).toBe(false);
    expect(promptlyGranted({}, 2000)).toBe(false);
  });
});
