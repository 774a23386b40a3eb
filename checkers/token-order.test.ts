import { describe, expect, it } from 'vitest';
import { checkTokenOrder, describeTokenViolation } from './token-order.ts';
import { history, invoke, ok, type Event } from '../test/support/test-history.ts';

/** An acquire of account 0 by `p` invoked at `from` ms and granted at `to` ms with `token`. */
const grant = (p: number, from: number, to: number, token: string | undefined, account = 0): Event[] => [
  { ...invoke(p, 'acquire', { account }), time: from * 1e6 },
  { ...ok(p, 'acquire', { account, attempts: 1, ...(token !== undefined ? { token } : {}) }), time: to * 1e6 },
];
/** Literal histories list events in time order, as the journal delivers them once ordered. */
const timeline = (...grants: Event[][]) => history(...grants.flat().sort((a, b) => a.time! - b.time!));

describe('checkTokenOrder', () => {
  it('valid: each later holder gets a larger token (64-bit, compared as BigInt)', () => {
    const r = checkTokenOrder(
      timeline(
        grant(0, 0, 1, '9007199254740993'),
        grant(1, 2, 3, '9007199254740994'),
        grant(0, 4, 5, '9007199254740995'),
      ),
    );
    expect(r).toMatchObject({ valid: true, grantsChecked: 3, violations: [] });
  });

  it('equal tokens for two holders one after the other are a violation', () => {
    const r = checkTokenOrder(timeline(grant(0, 0, 1, '5'), grant(1, 2, 3, '5')));
    expect(r.valid).toBe(false);
    expect(r.violations).toMatchObject([
      { kind: 'equal', earlier: { process: 0, index: 1, token: '5' }, later: { process: 1, index: 3, token: '5' } },
    ]);
  });

  it('backwards tokens name both acquires (process, index, token)', () => {
    const r = checkTokenOrder(timeline(grant(0, 0, 1, '10'), grant(1, 2, 3, '12'), grant(2, 4, 5, '11')));
    expect(r.valid).toBe(false);
    // Against p2's grant the largest earlier token is p1's 12, not p0's 10.
    expect(r.violations).toHaveLength(1);
    expect(describeTokenViolation(r.violations[0])).toBe(
      'account 0: p2 acquire #5 token 11 was invoked after p1 acquire #3 token 12 had been granted, yet its token is smaller',
    );
  });

  it('concurrent acquires may have been granted in either order', () => {
    // p1 was invoked before p0's acquire completed: either grant may have come first.
    const r = checkTokenOrder(timeline(grant(0, 0, 3, '8'), grant(1, 2, 4, '7')));
    expect(r).toMatchObject({ valid: true, grantsChecked: 2 });
  });

  it('checks each account (lock key) on its own', () => {
    const r = checkTokenOrder(timeline(grant(0, 0, 1, '10', 0), grant(1, 2, 3, '3', 1)));
    expect(r.valid).toBe(true);
  });

  it('a granted acquire without a token makes it unknown, not valid', () => {
    const r = checkTokenOrder(timeline(grant(0, 0, 1, '1'), grant(1, 2, 3, undefined)));
    expect(r.valid).toBe('unknown');
    expect(r.notes.join()).toMatch(/1 granted acquire\(s\) carried no token/);
  });
});
