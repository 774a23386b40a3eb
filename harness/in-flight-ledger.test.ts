import { describe, expect, it } from 'vitest';
import type { OpInput } from '../history/op.ts';
import type { SentOp } from '../workloads/op-outbox.ts';
import { InFlightLedger } from './in-flight-ledger.ts';

const sent = (seq: number, type: OpInput['type'], f = 'acquire'): SentOp => ({
  seq,
  op: { process: 0, type, f, value: { account: 0 } },
  at: String(seq * 1000),
});
const file = (...ops: SentOp[]) => ops.map((o) => `${JSON.stringify(o)}\n`).join('');

describe('InFlightLedger: every op of a client process recorded once', () => {
  it('records what IPC brings, and at the exit only the invokes it never brought', () => {
    const ledger = new InFlightLedger();
    expect(ledger.received(sent(1, 'invoke'))).toBe(true);
    expect(ledger.received(sent(2, 'ok'))).toBe(true);
    // Died inside its next call: invoke 3 was written ahead, never sent.
    expect(ledger.recover(file(sent(1, 'invoke'), sent(3, 'invoke', 'read'))).map((s) => s.seq)).toEqual([3]);
  });

  it('skips a recovered invoke whose message arrives after the exit, and keeps the completions in that message', () => {
    const ledger = new InFlightLedger();
    expect(ledger.received(sent(1, 'invoke'))).toBe(true);
    // At the exit, invokes 2 and 4 are in the file; their messages (with completion 3) are still in the pipe.
    const recovered = ledger.recover(file(sent(1, 'invoke'), sent(2, 'invoke', 'read'), sent(4, 'invoke', 'renew')));
    expect(recovered.map((s) => s.seq)).toEqual([2, 4]);
    // A rule of "nothing at or below the highest seq recovered" would drop completion 3: the read's ok.
    expect([2, 3, 4].map((seq) => ledger.received(sent(seq, seq === 3 ? 'ok' : 'invoke')))).toEqual([
      false,
      true,
      false,
    ]);
  });

  it("recovers a batching client's unsent completions with their invokes, and skips them when their message comes late", () => {
    const ledger = new InFlightLedger();
    expect(ledger.received(sent(1, 'invoke'))).toBe(true);
    expect(ledger.received(sent(2, 'ok'))).toBe(true);
    // Killed with a batch not yet sent: the read and its ok, then the write's invoke, all written ahead.
    const recovered = ledger.recover(
      file(
        sent(1, 'invoke'),
        sent(2, 'ok'),
        sent(3, 'invoke', 'read'),
        sent(4, 'ok', 'read'),
        sent(5, 'invoke', 'write'),
      ),
    );
    expect(recovered.map((s) => `${s.op.f} ${s.op.type}`)).toEqual(['read invoke', 'read ok', 'write invoke']);
    // The batch was in the pipe after all: every op of it is already recorded.
    expect([3, 4, 5].map((seq) => ledger.received(sent(seq, seq === 4 ? 'ok' : 'invoke')))).toEqual([
      false,
      false,
      false,
    ]);
  });
});
