import { describe, expect, it } from 'vitest';
import { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import type { Evidence } from '../evidence.ts';
import { sessionAtRate } from './session-at-rate.ts';

/**
 * clock-rate's lease-expired step on ZooKeeper, on literal histories: p3 acquired at 0 (ok at 5 ms), read at 10 ms,
 * and the leader's clock was struck at 20 ms with a 2 s session timeout. Its pings are not in the history.
 */

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

function shot(rate: number, rest: () => Op[]) {
  index = 0;
  const own = [op(3, 'acquire', 'invoke', 0), op(3, 'acquire', 'ok', 5), op(3, 'read', 'invoke', 8)];
  const read = op(3, 'read', 'ok', 10);
  own.push(read);
  const more = rest();
  own.push(...more.filter((o) => o.process === 3));
  const ops = [...own, ...more.filter((o) => o.process !== 3)].sort((x, y) => x.index - y.index);
  return {
    records: { ev: { start: { rate, ttlMs: 2000 } } as unknown as Evidence<'clock-rate'>, history: History.of(ops) },
    a: { aim: { process: 3, account: 1, readIndex: read.index, atIndex: 4 }, own, read, strikeNs: 20 * MS, who: 'p3' },
  };
}

describe("clock-rate on ZooKeeper: the holder's session expired on the leader's faster clock", () => {
  it('done when another client was granted the account before the holder wrote', () => {
    const { records, a } = shot(4, () => [
      op(5, 'acquire', 'invoke', 300),
      op(5, 'acquire', 'ok', 540),
      op(3, 'write', 'invoke', 1420),
    ]);
    expect(sessionAtRate(records, a)).toEqual({
      status: 'done',
      evidence:
        "p5 was granted account 1 at 0.54 s, 520 ms after the strike, while p3 had not yet written: its session expired on the leader (a session timeout of 2.00 s lasts 500 ms real on the leader's clock at 4×)",
    });
  });

  it('held when the holder wrote first and nobody was granted: its pings kept the session', () => {
    const { records, a } = shot(2, () => [op(3, 'write', 'invoke', 1420), op(5, 'acquire', 'ok', 1500)]);
    expect(sessionAtRate(records, a)).toEqual({
      status: 'held',
      evidence:
        "p3 wrote 1.40 s after the strike and no other client was granted meanwhile: its client's pings kept the session alive (a session timeout of 2.00 s lasts 1.00 s real on the leader's clock at 2×)",
    });
  });

  it('missing when the history ends with neither', () => {
    const { records, a } = shot(2, () => []);
    expect(sessionAtRate(records, a).status).toBe('missing');
  });
});
