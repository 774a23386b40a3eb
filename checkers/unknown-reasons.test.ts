import { describe, expect, it } from 'vitest';
import { CLIENT_EXITED, CLIENT_EXIT_NOTE } from '../history/client-exit.ts';
import { progressOf } from './progress.ts';
import { fail, finalRead, history, info, invoke, ok, row, type Event } from '../test/support/test-history.ts';
import { unknownReasons, withReasons } from './unknown-reasons.ts';

const acquireTimedOut = (p: number): Event[] => [
  invoke(p, 'acquire', { account: 0 }),
  info(p, 'acquire', { account: 0 }, 'timeout'),
];
/** `n` ledger rows alternating between the given processes. */
const rows = (n: number, processes: number[]) =>
  Array.from({ length: n }, (_, i) => row(i + 1, processes[i % processes.length], i, i + 1, i));

describe('progressOf', () => {
  it('counts committed writes from the ledger and maps process ids back to client slots', () => {
    // Processes 0 and 7 are slots 0 and 2 with --concurrency=5 (7 = 2 + 5 × 1: slot 2 after one info).
    const p = progressOf(history(finalRead(0, 0, 3, rows(3, [0, 7]))), 5);
    expect(p.committedWrites).toBe(3);
    expect(p.writers).toEqual([0, 2]);
  });

  it('counts acquire outcomes, failed connects and client exits', () => {
    const h = history(
      acquireTimedOut(0),
      acquireTimedOut(2),
      invoke(4, 'acquire', { account: 0 }),
      fail(4, 'acquire', { account: 0 }, 'not-acquired'),
      invoke(1, 'connect', null),
      fail(1, 'connect', null, 'ECONNREFUSED'),
      invoke(3, 'acquire', { account: 0 }),
      info(3, 'acquire', { account: 0, exit: { slot: 1, code: 1, signal: null, lastLines: ['boom'] } }, CLIENT_EXITED),
      info(
        5,
        CLIENT_EXIT_NOTE,
        { slot: 1, code: 1, signal: null, lastLines: ['boom again'], gaveUpAfter: 5 },
        CLIENT_EXITED,
      ),
      invoke(6, 'acquire', { account: 0 }), // never completed
    );
    const p = progressOf(h, 2);
    expect(p).toMatchObject({
      committedWrites: 0,
      acquires: { ok: 0, notAcquired: 1, timedOut: 2, unknown: 2 },
      connectFailures: 1,
      lastConnectError: 'ECONNREFUSED',
      clientExits: 2,
      slotsGaveUp: 1,
      lastExit: { slot: 1, lastLines: ['boom again'] },
    });
  });

  it('counts the exits the lock library caused on purpose apart, by its error, and names the last in the reason', () => {
    const crash = (slot: number) => ({
      slot,
      code: 5,
      signal: null,
      lastLines: [],
      libraryCrash: { error: 'LostLockError', message: 'Lost mutex for key mutex:x' },
    });
    const h = history(
      invoke(0, 'write', { account: 0 }),
      info(0, 'write', { account: 0, exit: crash(0) }, CLIENT_EXITED),
      info(6, CLIENT_EXIT_NOTE, crash(1), CLIENT_EXITED),
      info(2, CLIENT_EXIT_NOTE, { slot: 2, code: 1, signal: null, lastLines: ['boom'] }, CLIENT_EXITED),
      info(5, CLIENT_EXIT_NOTE, crash(0), CLIENT_EXITED),
    );
    const p = progressOf(h, 5);
    expect(p).toMatchObject({ clientExits: 4, slotsGaveUp: 0, libraryCrashes: { LostLockError: 3 } });
    expect(unknownReasons({ progress: p }, { minWrites: 10, concurrency: 5 })[0]).toBe(
      'no progress: 0 writes committed; 4 client process exits; last: client 0 ended by its lock library (LostLockError: Lost mutex for key mutex:x)',
    );
  });

  it("falls back to the clients' ok writes for an account without a final read", () => {
    const h = history(invoke(1, 'write', { account: 0 }), ok(1, 'write', { account: 0, writeId: 1 }));
    expect(progressOf(h, 2)).toMatchObject({ committedWrites: 1, writers: [1] });
  });
});

describe('unknownReasons', () => {
  const rules = { minWrites: 10, concurrency: 5 };

  it('no progress: says how many writes and why, in one line', () => {
    const progress = progressOf(
      history(...Array.from({ length: 14 }, (_, i) => acquireTimedOut(i)), finalRead(0, 0, 0, [])),
      5,
    );
    expect(unknownReasons({ progress }, rules)).toEqual(['no progress: 0 writes committed; 14 acquires timed out']);
  });

  it('too little progress names --min-writes', () => {
    const progress = progressOf(history(finalRead(0, 0, 4, rows(4, [0, 1]))), 5);
    expect(unknownReasons({ progress }, rules)).toEqual([
      'too little progress: 4 writes committed, --min-writes=10; no client op completed',
    ]);
  });

  it('one writer is not a test of a lock when there are several clients, but is enough for one client', () => {
    const progress = progressOf(history(finalRead(0, 0, 12, rows(12, [3]))), 5);
    expect(unknownReasons({ progress }, rules)[0]).toMatch(
      /^no concurrency: only client 3 committed writes \(12\) although --concurrency=5/,
    );
    expect(unknownReasons({ progress }, { minWrites: 10, concurrency: 1 })).toEqual([]);
  });

  it('enough writes by two clients: no reason', () => {
    const progress = progressOf(history(finalRead(0, 0, 10, rows(10, [0, 1]))), 5);
    expect(unknownReasons({ progress }, rules)).toEqual([]);
  });

  it('clients that kept dying say so, with the last exit', () => {
    const h = history(
      info(
        5,
        CLIENT_EXIT_NOTE,
        { slot: 0, code: 1, signal: null, lastLines: ['exiting in acquire'], gaveUpAfter: 5 },
        CLIENT_EXITED,
      ),
    );
    const reasons = unknownReasons({ progress: progressOf(h, 5) }, rules);
    expect(reasons).toHaveLength(2);
    // The first line (what the summary leads with) names the exits, however many slots had given up by then.
    expect(reasons[0]).toBe(
      'no progress: 0 writes committed; 1 client process exit; last: client 0 exited with code 1: exiting in acquire',
    );
    expect(reasons[1]).toBe('clients kept dying; 1 of 5 client slot(s) gave up; see logs/client-<n>.log');
  });

  it('clients that kept dying in a run that did make progress: the exits are named in that reason', () => {
    const h = history(
      info(5, CLIENT_EXIT_NOTE, { slot: 0, code: 1, signal: null, lastLines: ['boom'], gaveUpAfter: 5 }, CLIENT_EXITED),
      finalRead(0, 0, 12, rows(12, [1, 2])),
    );
    const reasons = unknownReasons({ progress: progressOf(h, 5) }, rules);
    expect(reasons).toEqual([
      'clients kept dying: 1 client process exit; last: client 0 exited with code 1: boom; 1 of 5 client slot(s) gave up; see logs/client-<n>.log',
    ]);
  });
});

describe('withReasons', () => {
  it('composes false > unknown > true: an INVALID run stays INVALID', () => {
    expect(withReasons(false, ['no progress'])).toBe(false);
    expect(withReasons(true, ['no progress'])).toBe('unknown');
    expect(withReasons('unknown', [])).toBe('unknown');
    expect(withReasons(true, [])).toBe(true);
  });
});
