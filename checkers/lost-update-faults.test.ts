import { describe, expect, it } from 'vitest';
import { pausedHolderHistory } from '../test/support/paused-holder-history.ts';
import { history, twoWritersLoseOne, type Event } from '../test/support/test-history.ts';
import type { Op } from '../history/op.ts';
import { checkLostUpdates } from './lost-updates.ts';
import { lostUpdateFaults, NO_FAULT } from './lost-update-faults.ts';
import { checkRun } from './check-run.ts';

const lostOf = (ops: Op[]) => checkLostUpdates(ops).lostUpdates;

/** A nemesis start or end event, at a given ms. */
const nemesis = (f: string, phase: 'start' | 'end', ms: number, targets: string[] = ['redis[0]']): Event => ({
  process: 'nemesis',
  type: 'info',
  f,
  value: { phase, targets },
  time: ms * 1e6,
});

describe('the faults each lost update happened under', () => {
  it('names the pause that stopped a writer inside its critical section (Kleppmann: p0 paused, its write erased p1’s)', () => {
    const ops = pausedHolderHistory({ fenced: false });
    const { perLostUpdate, byFault } = lostUpdateFaults(ops, lostOf(ops));
    expect(perLostUpdate).toEqual([['pause-holder']]);
    expect(byFault).toEqual({ 'pause-holder': 1 });
  });

  it('otherwise counts every fault active during the two writes, and contention alone as "no fault"', () => {
    const plain = twoWritersLoseOne();
    expect(lostUpdateFaults(plain, lostOf(plain)).byFault).toEqual({ [NO_FAULT]: 1 });

    // The same writes (at 0–7 ms) with a restart-empty over them and a clock jump long after.
    const ops = history(
      nemesis('restart-empty', 'start', 0),
      ...twoWritersLoseOne().map(({ index: _i, ...e }) => e as Event),
      nemesis('restart-empty', 'end', 9),
      nemesis('clock', 'start', 50),
      nemesis('clock', 'end', 60),
    );
    const { perLostUpdate, byFault } = lostUpdateFaults(ops, lostOf(ops));
    expect(perLostUpdate).toEqual([['restart-empty']]);
    expect(byFault).toEqual({ 'restart-empty': 1 });
  });

  it('is in the results: each lost update carries its faults, and the tally sits beside the count', () => {
    const ops = pausedHolderHistory({ fenced: false });
    const r = checkRun(ops, { fencing: false, token: 'monotonic', exclusive: true });
    expect(r.lostUpdates).toBe(1);
    expect(r.lostUpdateDetails[0].faults).toEqual(['pause-holder']);
    expect(r.lostUpdatesByFault).toEqual({ 'pause-holder': 1 });
    expect(
      checkRun(pausedHolderHistory({ fenced: true }), { fencing: true, token: 'monotonic', exclusive: true })
        .lostUpdatesByFault,
    ).toEqual({});
  });
});
