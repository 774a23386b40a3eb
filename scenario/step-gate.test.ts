import { describe, expect, it } from 'vitest';
import type { Op } from '../history/op.ts';
import { watchdogProcess } from '../history/process-role.ts';
import { fail, history, info, invoke, ok } from '../test/support/test-history.ts';
import { ClientStepGate, RenewGate, renewAlreadyFailed, type GateOutcome } from './step-gate.ts';
import { LeaseClock } from './lease-clock.ts';

/** Feeds ops to a gate in order; the first outcome, or null when the history never decides it. */
function gateOver(gate: { observe(op: Op): GateOutcome | null }, ops: readonly Op[]): GateOutcome | null {
  for (const op of ops) {
    const o = gate.observe(op);
    if (o) return o;
  }
  return null;
}

const w = { account: 0, from: 100, to: 120, delta: 20, basedOn: 0 };
// Two clients A (slot 0) and B (slot 1): process ids slot + 2 × generation.
const A = new ClientStepGate('A', 0, 2, 'acquire', 'done');

describe('a client step gate, on literal histories', () => {
  it('is done at the completion of its own invoke, not at another client’s', () => {
    const ops = history(
      invoke(1, 'acquire', { account: 0 }),
      ok(1, 'acquire', { account: 0 }),
      invoke(0, 'acquire', { account: 0 }),
      ok(0, 'acquire', { account: 0 }),
    );
    expect(gateOver(new ClientStepGate('A', 0, 2, 'acquire', 'done'), ops)).toEqual({
      status: 'done',
      evidence: 'A was granted account 0 (#3)',
    });
  });

  it('follows the slot to its later process ids (after an info the client runs as slot + 2 × n)', () => {
    const ops = history(invoke(2, 'read', { account: 0 }), ok(2, 'read', { account: 0 }));
    expect(gateOver(new ClientStepGate('A', 0, 2, 'read', 'done'), ops)?.status).toBe('done');
  });

  it('an acquire that is not granted, or ends unknown, is a script the run could not follow', () => {
    expect(
      gateOver(A, history(invoke(0, 'acquire', { account: 0 }), fail(0, 'acquire', { account: 0 }, 'not-acquired'))),
    ).toEqual({
      status: 'diverged',
      evidence: 'A was not granted account 0 (#1, fail: not-acquired)',
    });
    const g = new ClientStepGate('B', 1, 2, 'acquire', 'done');
    expect(gateOver(g, history(invoke(1, 'acquire', { account: 0 }), info(1, 'acquire', { account: 0 })))?.status).toBe(
      'diverged',
    );
  });

  it('a write is judged by the story rule: committed → done; refused as stale or skipped as lock-lost → held', () => {
    const gate = () => new ClientStepGate('A', 0, 2, 'write', 'done');
    expect(gateOver(gate(), history(invoke(0, 'write', w), ok(0, 'write', { ...w, writeId: 3 })))).toEqual({
      status: 'done',
      evidence: 'A wrote #0',
    });
    expect(gateOver(gate(), history(invoke(0, 'write', w), fail(0, 'write', w, 'stale-token')))).toEqual({
      status: 'held',
      evidence: "A's write #0 was refused (stale-token)",
    });
    expect(gateOver(gate(), history(invoke(0, 'write', w), fail(0, 'write', w, 'lock-lost')))?.status).toBe('held');
    // An unknown outcome may have committed: the ledger decides, the script goes on.
    expect(gateOver(gate(), history(invoke(0, 'write', w), info(0, 'write', w)))?.status).toBe('done');
    expect(gateOver(gate(), history(invoke(0, 'write', w), info(0, 'write', w, 'client-exited')))).toEqual({
      status: 'diverged',
      evidence: 'A died before its write #0 completed',
    });
  });

  it('a read refused as stale (fenced) is held: the fence acted', () => {
    const g = new ClientStepGate('A', 0, 2, 'read', 'done');
    expect(
      gateOver(g, history(invoke(0, 'read', { account: 0 }), fail(0, 'read', { account: 0 }, 'stale-token')))?.status,
    ).toBe('held');
  });

  it('`start A write` is done at the invoke; its completion is a second gate', () => {
    const ops = history(invoke(0, 'write', w));
    expect(gateOver(new ClientStepGate('A', 0, 2, 'write', 'started'), ops)).toEqual({
      status: 'done',
      evidence: 'A invoked its write (#0)',
    });
    expect(gateOver(new ClientStepGate('A', 0, 2, 'write', 'done'), ops)).toBeNull();
  });

  it('a release ends the section whatever it answers', () => {
    const g = new ClientStepGate('A', 0, 2, 'release', 'done');
    const ops = history(invoke(0, 'release', { account: 0 }), ok(0, 'release', { account: 0, released: false }));
    expect(gateOver(g, ops)?.status).toBe('done');
  });
});

describe('the lease clock of `wait lease-expired`', () => {
  const TTL = 2000;
  const ms = (n: number) => n * 1e6;
  const aim = (process: number, atTime: number) => ({
    phase: 'start',
    targets: ['client p0'],
    params: { aim: { process, account: 0, readIndex: 1, readTime: ms(10), atIndex: 2, atTime } },
  });

  it('counts from the strike of a pause on the client (the judge measures the pause from there)', () => {
    const clock = new LeaseClock('A', 0, 2, TTL);
    const ops = history(
      { ...ok(0, 'acquire', { account: 0 }), time: ms(5) },
      { ...ok(0, 'read', { account: 0 }), time: ms(10) },
      { process: 'nemesis', type: 'info', f: 'pause-holder', value: aim(0, ms(12)), time: ms(12) },
    );
    ops.forEach((o) => clock.observe(o));
    expect(clock.expiresAt()).toBe(ms(12 + TTL));
    expect(clock.ranOut(ms(12 + TTL - 1)).yes).toBe(false);
    expect(clock.ranOut(ms(12 + TTL))).toEqual({ yes: true, evidence: '2000 ms since A was stopped (TTL 2000 ms)' });
  });

  it('a pause of another client does not move it', () => {
    const clock = new LeaseClock('A', 0, 2, TTL);
    history(
      { ...ok(0, 'acquire', { account: 0 }), time: ms(5) },
      { process: 'nemesis', type: 'info', f: 'pause-holder', value: aim(1, ms(12)), time: ms(12) },
    ).forEach((o) => clock.observe(o));
    expect(clock.expiresAt()).toBe(ms(5 + TTL));
  });

  it('under delay-write it counts from the held write’s invoke, and waits until the write is sent', () => {
    const clock = new LeaseClock('A', 0, 2, TTL);
    const hold = { phase: 'start', targets: ['client p0'], params: { process: 0, account: 0 } };
    const ops = history(
      { ...ok(0, 'acquire', { account: 0 }), time: ms(5) },
      { process: 'nemesis', type: 'info', f: 'delay-write', value: hold, time: ms(12) },
    );
    ops.forEach((o) => clock.observe(o));
    expect(clock.ranOut(ms(9000)).yes).toBe(true); // from the acquire, until the write goes into the hold
    clock.observe({ ...invoke(0, 'write', w), index: 2, time: ms(20) });
    expect(clock.expiresAt()).toBe(ms(20 + TTL));
    expect(clock.ranOut(ms(20 + TTL)).evidence).toBe('2000 ms since A sent its write into the hold (TTL 2000 ms)');
  });

  it('says nothing before the client acquired', () => {
    expect(new LeaseClock('A', 0, 2, TTL).ranOut(ms(1e6))).toEqual({
      yes: false,
      evidence: "nothing of A's lease is in the history yet",
    });
  });
});

describe('the renew gate of `wait A renew`', () => {
  it('takes the first renewal of A’s watchdog invoked since the step before, ok or not', () => {
    const wd = watchdogProcess(0);
    const ops = history(
      { ...invoke(wd, 'renew', { account: 0 }), time: 1e6 },
      { ...ok(wd, 'renew', { account: 0 }), time: 2e6 },
      { ...invoke(watchdogProcess(1), 'renew', { account: 0 }), time: 5e6 },
      { ...ok(watchdogProcess(1), 'renew', { account: 0 }), time: 6e6 },
      { ...invoke(wd, 'renew', { account: 0 }), time: 7e6 },
      { ...fail(wd, 'renew', { account: 0 }, 'lock-lost'), time: 8e6 },
    );
    expect(gateOver(new RenewGate('A', 0, 2, 4e6), ops)).toEqual({
      status: 'done',
      evidence: "A's watchdog failed to renew (#5: lock-lost): it knows the lease is gone",
    });
    expect(gateOver(new RenewGate('A', 0, 2, 0), ops)?.evidence).toBe("A's watchdog renewed its lease (#1)");
  });

  it('takes a failed renewal that was in flight when the step began (the pause came mid-renewal)', () => {
    const wd = watchdogProcess(0);
    const ops = history(
      { ...invoke(wd, 'renew', { account: 0 }), time: 1e6 },
      { ...fail(wd, 'renew', { account: 0 }, 'lock-lost'), time: 5e6 },
    );
    // Only what completes after the step began is fed to the gate, as scenario-run's replay does.
    expect(gateOver(new RenewGate('A', 0, 2, 4e6), ops.slice(1))).toEqual({
      status: 'done',
      evidence: "A's watchdog failed to renew (#1: lock-lost): it knows the lease is gone",
    });
    // An ok of that age renewed before the story: the step waits for the next tick's answer.
    const renewed = history(
      { ...invoke(wd, 'renew', { account: 0 }), time: 1e6 },
      { ...ok(wd, 'renew', { account: 0 }), time: 5e6 },
    );
    expect(gateOver(new RenewGate('A', 0, 2, 4e6), renewed.slice(1))).toBeNull();
  });

  it("is done at once when A's watchdog already failed in this section: it will not renew again", () => {
    // The soak's one divergence (pause-holder's late-renewal script beside a CPU hog): a renewal lost before the pause
    // stopped the watchdog, and `wait A renew` waited for a renewal that could never come.
    const wd = watchdogProcess(0);
    const ops = history(
      invoke(0, 'acquire', { account: 0 }),
      ok(0, 'acquire', { account: 0 }),
      invoke(wd, 'renew', { account: 0 }),
      fail(wd, 'renew', { account: 0 }, 'lock-lost'),
    );
    expect(renewAlreadyFailed('A', 0, 2, ops)).toEqual({
      status: 'done',
      evidence: "A's watchdog failed to renew (#3: lock-lost) before this step: it knows the lease is gone",
    });
    // B's watchdog, or a failure of A's earlier section (A acquired again since), says nothing of A's lease now.
    expect(renewAlreadyFailed('B', 1, 2, ops)).toBeNull();
    const again = history(...ops, invoke(0, 'acquire', { account: 0 }), ok(0, 'acquire', { account: 0 }));
    expect(renewAlreadyFailed('A', 0, 2, again)).toBeNull();
    const renewedOnly = history(ops[0]!, ops[1]!, ops[2]!, ok(wd, 'renew', { account: 0 }));
    expect(renewAlreadyFailed('A', 0, 2, renewedOnly)).toBeNull();
  });
});
