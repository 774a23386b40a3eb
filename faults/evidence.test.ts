import { describe, expect, it } from 'vitest';
import { aimOf, evidenceOf, processOf } from './evidence.ts';
import type { Op } from '../history/op.ts';
import { unmovableClocks } from './clock/judge.ts';

const record = (f: string, phase: 'start' | 'end', params: unknown, index = 0, note?: string): Op => ({
  index,
  time: index * 1e6,
  process: 'nemesis',
  type: 'info',
  f,
  value: { phase, targets: ['p1'], ...(params === undefined ? {} : { params }), ...(note ? { note } : {}) },
});

describe('evidenceOf: one tolerant reader of a fault record', () => {
  it("a today's kill record and one with extra or missing keys decode to the same typed evidence", () => {
    const today = evidenceOf(
      'kill',
      record('kill', 'start', { downMs: 0, leader: true, withData: true }),
      record('kill', 'end', { heldMs: 5, restartedInMs: 120, rejoined: true }, 1),
    );
    expect(today).toEqual({
      targets: ['p1'],
      start: { downMs: 0, leader: true, withData: true },
      startNote: '',
      end: { restartedInMs: 120, rejoined: true, heldMs: 5 },
      endNote: '',
    });
    // Keys of the wrong type or unknown keys are left out, not passed on.
    const odd = evidenceOf(
      'kill',
      record('kill', 'start', { downMs: '0', leader: true, withData: true, extra: 1 }),
      record('kill', 'end', { heldMs: 5, restartedInMs: 120, rejoined: true }, 1),
    );
    expect(odd.start).toEqual({ leader: true, withData: true });
  });

  it('an old partition end record without byte counts decodes as a today record with none', () => {
    const old = evidenceOf(
      'partition',
      record('partition', 'start', { durationMs: 10 }),
      record('partition', 'end', {}, 1),
    );
    const today = evidenceOf(
      'partition',
      record('partition', 'start', { durationMs: 10, proxies: ['etcd[0]'] }),
      record('partition', 'end', { heldMs: 3, heldBytes: { 'etcd[0]': 7, 'etcd[1]': 'x' } }, 1),
    );
    expect(old.end).toEqual({});
    expect(today.end).toEqual({ heldMs: 3, heldBytes: { 'etcd[0]': 7, 'etcd[1]': 0 } });
  });

  it('a pause record from before lock trees and a today one agree on everything but the tree', () => {
    const base = { durationMs: 10, slot: 0, pid: 42, stopped: true, lockPid: 43, lockStopped: true };
    const old = evidenceOf('pause-client', record('pause-client', 'start', base), undefined);
    const today = evidenceOf(
      'pause-client',
      record('pause-client', 'start', { ...base, lockTree: { by: 'cgroup', pids: [43, 44], running: [] } }),
      undefined,
    );
    expect(old.end).toBeNull();
    const { lockTree, ...rest } = today.start;
    expect(rest).toEqual(old.start);
    expect(lockTree).toEqual({ by: 'cgroup', pids: [43, 44], running: [] });
    // A tree without its lists is no tree.
    const broken = evidenceOf(
      'pause-client',
      record('pause-client', 'start', { ...base, lockTree: { by: 'x' } }),
      undefined,
    );
    expect(broken.start).toEqual(old.start);
  });

  it('an aim without times (older runs) and with them both decode; an aim missing its numbers does not', () => {
    const byIndex = { process: 1, account: 0, readIndex: 3, atIndex: 4, struck: ['etcd[0]'] };
    const byTime = { ...byIndex, readTime: 3e6, atTime: 4e6 };
    const bad = { process: 1, account: 0, readIndex: 3 };
    expect(aimOf(record('clock', 'start', { aim: byIndex }))).toEqual(byIndex);
    expect(aimOf(record('clock', 'start', { aim: byTime }))).toEqual(byTime);
    expect(aimOf(record('clock', 'start', { aim: bad }))).toBeUndefined();
    expect(evidenceOf('clock', record('clock', 'start', { aim: bad }), undefined).start).toEqual({});
    // A clock shot on etcd members only (a run from before clock was refused for etcd) moved nothing.
    const clockShot = (aim: unknown) => ({ ev: evidenceOf('clock', record('clock', 'start', { aim }), undefined) });
    expect(unmovableClocks(clockShot(byIndex))).toMatch(/^it struck etcd\[0\]: /);
    expect(unmovableClocks(clockShot({ ...byIndex, struck: ['redis[0]'] }))).toBeNull();
  });

  it("processOf: the aim's process, else delay-write's own; leader-churn rounds and server sides decode", () => {
    expect(
      processOf(record('pause-holder', 'start', { aim: { process: 2, account: 0, readIndex: 1, atIndex: 2 } })),
    ).toBe(2);
    expect(processOf(record('delay-write', 'start', { process: 5 }))).toBe(5);
    expect(processOf(record('kill', 'start', {}))).toBeUndefined();
    const churn = evidenceOf(
      'leader-churn',
      record('leader-churn', 'start', {}),
      record(
        'leader-churn',
        'end',
        {
          rounds: [
            { stopped: 'etcd[0]', next: 'etcd[1]', stoppedMs: 900 },
            { stopped: 'etcd[1]', stoppedMs: 50, cut: true },
          ],
        },
        1,
      ),
    );
    expect(churn.end?.rounds).toEqual([
      { stopped: 'etcd[0]', next: 'etcd[1]', stoppedMs: 900 },
      { stopped: 'etcd[1]', next: null, stoppedMs: 50, cut: true },
    ]);
    const grudge = evidenceOf(
      'bridge',
      record(
        'bridge',
        'start',
        { sides: [{ members: ['a'], clients: [] }, { members: 'b' }], leader: null },
        0,
        'cut a ⇹ b',
      ),
      undefined,
    );
    expect(grudge.start).toEqual({
      sides: [
        { members: ['a'], clients: [] },
        { members: [], clients: [] },
      ],
      leader: null,
    });
    expect(grudge.startNote).toBe('cut a ⇹ b');
  });
});
