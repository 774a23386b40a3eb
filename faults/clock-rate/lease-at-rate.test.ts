import { describe, expect, it } from 'vitest';
import { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import type { Evidence } from '../evidence.ts';
import { leaseAtRate } from './lease-at-rate.ts';

/**
 * clock-rate's lease-expired step on literal histories: p3 acquired at 0 (ok at 5 ms), read at 10 ms, struck at
 * 20 ms with a 2 s TTL; its watchdog (--watchdog) renews every TTL/3.
 */

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

function shot(rate: number, rest: () => Op[]) {
  index = 0;
  const own = [op(3, 'acquire', 'invoke', 0), op(3, 'acquire', 'ok', 5), op(3, 'read', 'invoke', 8)];
  const read = op(3, 'read', 'ok', 10);
  own.push(read);
  const more = rest();
  own.push(...more.filter((o) => o.process === 3));
  const wd = more.filter((o) => o.process === WD);
  const ops = [...own, ...more.filter((o) => o.process !== 3)].sort((x, y) => x.index - y.index);
  return {
    records: {
      ev: { start: { rate, ttlMs: 2000 } } as unknown as Evidence<'clock-rate'>,
      history: History.of(ops),
      byProcess: new Map<number, Op[]>([
        [3, own],
        [WD, wd],
      ]),
    },
    a: { aim: { process: 3, account: 1, readIndex: read.index, atIndex: 4 }, own, read, strikeNs: 20 * MS, who: 'p3' },
  };
}

describe('clock-rate: the holder was still inside its section when its key expired at the rate', () => {
  it('held at 2×: the key had 0.99 s left, the section went on 1.4 s, and a renewal kept it', () => {
    const { records, a } = shot(2, () => [
      op(WD, 'renew', 'invoke', 667),
      op(WD, 'renew', 'ok', 669),
      op(3, 'write', 'invoke', 1420),
    ]);
    expect(leaseAtRate(records, a)).toEqual({
      status: 'held',
      evidence:
        'p3 was still inside its section 1.40 s after the strike (its write #6 at 1.42 s); its key had 993 ms left at 2× after the strike (last success #1), and its renewal #5 kept it: renewed at 0.67 s, no other client granted meanwhile',
    });
  });

  it('done at 4×: the key expired at 0.5 s, before the renewal, with the holder still inside until its write', () => {
    const { records, a } = shot(4, () => [
      op(5, 'acquire', 'invoke', 300),
      op(5, 'acquire', 'ok', 520),
      op(3, 'write', 'invoke', 612),
      op(WD, 'renew', 'invoke', 667),
    ]);
    expect(leaseAtRate(records, a)).toEqual({
      status: 'done',
      evidence:
        'p3 was still inside its section 592 ms after the strike (its write #6 at 0.61 s); its key had 496 ms left at 4× after the strike (last success #1): it expired while the holder held on',
    });
  });

  it('done when another client was granted although a renewal succeeded: the renewal came after the key was gone', () => {
    const { records, a } = shot(2, () => [
      op(5, 'acquire', 'ok', 1100),
      op(WD, 'renew', 'ok', 1200),
      op(3, 'write', 'invoke', 1420),
    ]);
    expect(leaseAtRate(records, a).status).toBe('done');
  });

  it('missing when the holder wrote before the key could expire at the rate', () => {
    const { records, a } = shot(2, () => [op(3, 'write', 'invoke', 610)]);
    expect(leaseAtRate(records, a)).toEqual({
      status: 'missing',
      evidence:
        'p3 wrote 590 ms after the strike; its key had 993 ms left at 2× after the strike (last success #1): the rate had nothing to expire',
    });
  });
});
