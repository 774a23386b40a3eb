import { describe, expect, it } from 'vitest';
import { checkRun } from './check-run.ts';
import { faultHitReasons, faultHits } from './fault-hits.ts';
import { finalRead, history, invoke, ok, read, row, writeValue, type Event } from '../test/support/test-history.ts';

const nemesis = (
  f: string,
  phase: 'start' | 'end',
  params?: Record<string, unknown>,
  targets: string[] = [],
): Event => ({
  process: 'nemesis',
  type: 'info',
  f,
  value: { phase, targets, ...(params ? { params } : {}) },
});

// p0: acquire #0-1, read #2-3 (account 0). The fault's start record is #4 and it struck at #4.
const section = (): Event[] => [
  invoke(0, 'acquire', { account: 0 }),
  ok(0, 'acquire', { account: 0 }),
  ...read(0, 100, 0),
];
const write0 = (): Event[] => [
  invoke(0, 'write', writeValue(100, 110, 0)),
  ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 1 }),
];
const finalState = () => finalRead(0, 100, 110, [row(1, 0, 100, 110, 0)]);

describe('faultHits', () => {
  it('pause-holder: a holder paused between its read and its write is a hit, with the evidence', () => {
    const h = history(
      section(),
      nemesis('pause-holder', 'start', { aim: { process: 0, account: 0, readIndex: 3, atIndex: 4 } }, [
        'client p0 (pid 9)',
      ]),
      write0(),
      nemesis('pause-holder', 'end'),
      finalState(),
    );
    const hits = faultHits(h);
    expect(hits['pause-holder']).toEqual({
      fired: 1,
      hit: 1,
      shots: [
        {
          index: 4,
          hit: true,
          evidence: 'paused p0 while p0 was inside its critical section on account 0 (read #3, struck at #4)',
        },
      ],
    });
    expect(faultHitReasons(hits, ['pause-holder'])).toEqual([]);
  });

  it('a fault that struck after the holder had invoked its write is a miss, and the reason names it', () => {
    // p0's write invoke is #4; the kill was recorded at #6, struck at #6.
    const aim = {
      process: 0,
      account: 0,
      readIndex: 3,
      atIndex: 6,
      struck: ['redis[0]'],
      keysOn: { 'redis[0]': ['my:account-0'] },
      needed: 1,
    };
    const h = history(
      section(),
      write0(),
      nemesis('restart-empty', 'start', { aim }, ['redis[0]']),
      nemesis('restart-empty', 'end'),
      finalState(),
    );
    const hits = faultHits(h);
    expect(hits['restart-empty']).toMatchObject({ fired: 1, hit: 0 });
    expect(hits['restart-empty'].shots[0].evidence).toBe(
      'p0 had left its critical section (#4: write invoke) before the fault struck (at #6)',
    );
    expect(faultHitReasons(hits, ['restart-empty'])).toEqual([
      'restart-empty fired 1 time but never killed the Redis nodes holding the lock key while its holder was inside its critical section (first miss, #6: p0 had left its critical section (#4: write invoke) before the fault struck (at #6))',
    ]);
  });

  it('times decide, not indexes: the history is renumbered when put in time order after the run', () => {
    // The aim's readIndex/atIndex are arrival positions (stale after the sort): the read at 3 ms, the strike at 4.5 ms.
    const aim = { process: 0, account: 0, readIndex: 17, atIndex: 18, readTime: 3_000_000, atTime: 4_500_000 };
    const hit = faultHits(history(section(), nemesis('pause-holder', 'start', { aim }), write0(), finalState()));
    expect(hit['pause-holder'].shots).toEqual([
      {
        index: 4,
        hit: true,
        evidence: 'paused p0 while p0 was inside its critical section on account 0 (read #3, struck at 4.5 ms)',
      },
    ]);
    // The holder stamped its write invoke (4.2 ms) before the strike (4.5 ms), though the message arrived after it:
    // its write was already on its way, so the pause did not catch it inside its critical section.
    const late = history(
      section(),
      { ...invoke(0, 'write', writeValue(100, 110, 0)), time: 4_200_000 },
      nemesis('pause-holder', 'start', { aim }),
      ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 1 }),
      finalState(),
    );
    const miss = faultHits(late)['pause-holder'];
    expect(miss.hit).toBe(0);
    expect(miss.shots[0].evidence).toBe(
      'p0 had left its critical section (#4: write invoke) before the fault struck (at 4.5 ms)',
    );
  });

  it("delay-write: decided by its end record (the holder's write sent into the hold and still undelivered)", () => {
    const endHit = {
      phase: 'end',
      targets: [],
      params: { hit: true, process: 0, account: 0, heldMs: 2900, writeIndex: 4 },
      note: "p0's write (#4) held 2890 ms, now delivered",
    };
    const endMiss = {
      phase: 'end',
      targets: [],
      params: { hit: false, process: 0, account: 0 },
      note: 'p0 sent no write while held',
    };
    const start = nemesis('delay-write', 'start', { process: 0, account: 0, readIndex: 3 });
    const hit = faultHits(
      history(section(), start, write0(), { ...nemesis('delay-write', 'end'), value: endHit }, finalState()),
    )['delay-write'];
    expect(hit).toEqual({
      fired: 1,
      hit: 1,
      shots: [
        {
          index: 4,
          hit: true,
          evidence: "held p0's traffic on account 0: p0's write (#4) held 2890 ms, now delivered",
        },
      ],
    });
    const miss = faultHits(
      history(section(), start, { ...nemesis('delay-write', 'end'), value: endMiss }, write0(), finalState()),
    );
    expect(miss['delay-write']).toMatchObject({ fired: 1, hit: 0 });
    expect(faultHitReasons(miss, ['delay-write'])[0]).toMatch(
      /^delay-write fired 1 time but never held the holder's write in flight \(first miss, #4: p0 sent no write while held\)/,
    );
    // A run that ended during the hold has no end record: not a hit.
    expect(faultHits(history(section(), start, write0()))['delay-write'].shots[0]).toMatchObject({ hit: false });
  });

  it('restart-empty on the nodes holding the key, in time, is a hit that names the keys', () => {
    const aim = {
      process: 0,
      account: 0,
      readIndex: 3,
      atIndex: 4,
      struck: ['redis[0]'],
      keysOn: { 'redis[0]': ['my:account-0'] },
      needed: 1,
    };
    const hits = faultHits(
      history(section(), nemesis('restart-empty', 'start', { aim }, ['redis[0]']), write0(), finalState()),
    );
    expect(hits['restart-empty'].shots).toEqual([
      {
        index: 4,
        hit: true,
        evidence:
          'killed redis[0] while p0 was inside its critical section on account 0 (read #3, struck at #4); redis[0] held my:account-0',
      },
    ]);
  });

  it('a clock jump on a node without the key, or on fewer nodes than the lock needs broken, is a miss', () => {
    const bare = {
      process: 0,
      account: 0,
      readIndex: 3,
      atIndex: 4,
      struck: ['redis[1]'],
      keysOn: { 'redis[0]': ['lock:account-0'] },
      needed: 1,
    };
    const few = {
      process: 0,
      account: 0,
      readIndex: 3,
      atIndex: 5,
      struck: ['redis[0]'],
      keysOn: { 'redis[0]': ['lock:account-0'], 'redis[1]': ['lock:account-0'] },
      needed: 2,
    };
    const hits = faultHits(
      history(
        section(),
        nemesis('clock', 'start', { aim: bare }),
        nemesis('clock', 'start', { aim: few }),
        write0(),
        finalState(),
      ),
    );
    expect(hits.clock.fired).toBe(2);
    expect(hits.clock.hit).toBe(0);
    expect(hits.clock.shots.map((s) => s.evidence)).toEqual([
      'redis[1] held no lock key of account 0 when struck',
      'it struck 1 of the 2 nodes the lock needed broken',
    ]);
  });

  it('an aim that does not match the history, or no aim at all, is a miss', () => {
    const wrongRead = { process: 1, account: 0, readIndex: 3, atIndex: 4 };
    const hits = faultHits(
      history(
        section(),
        nemesis('pause-holder', 'start', { aim: wrongRead }),
        nemesis('pause-holder', 'start', { durationMs: 3000 }),
        write0(),
      ),
    );
    expect(hits['pause-holder'].shots.map((s) => [s.hit, s.evidence])).toEqual([
      [false, "history #3 is not p1's read of account 0, which the fault says it caught"],
      [false, 'no aim recorded with it (a run from before fencepost recorded where faults landed)'],
    ]);
  });

  it('counts faults that do not aim at the lock without judging them', () => {
    const hits = faultHits(
      history(nemesis('partition', 'start'), nemesis('partition', 'end'), nemesis('partition', 'start')),
    );
    expect(hits).toEqual({ partition: { fired: 2, hit: null, shots: [] } });
    expect(faultHitReasons(hits, ['partition'])).toEqual([]);
  });
});

describe('faultHitReasons', () => {
  it('a targeted fault of the run that never fired is a reason; one not in the run is not', () => {
    expect(faultHitReasons({}, ['clock', 'pause-client'])).toEqual([
      "clock never fired: the history has no injection of it (the run ended before its turn, or no client entered its critical section with its lock where the fault could reach it: see the run's log); run longer or lower --nemesis-interval",
    ]);
    expect(faultHitReasons({}, [])).toEqual([]);
  });
});

describe("checkRun with the run's fault list", () => {
  const missed = history(
    section(),
    write0(),
    nemesis('pause-holder', 'start', { aim: { process: 0, account: 0, readIndex: 3, atIndex: 6 } }),
    finalState(),
  );

  it('a clean run whose targeted fault never hit is unknown, with the reason', () => {
    const r = checkRun(missed, { fencing: false, faults: ['pause-holder'] });
    expect(r.valid).toBe('unknown');
    expect(r.unknownReasons).toHaveLength(1);
    expect(r.unknownReasons[0]).toMatch(
      /^pause-holder fired 1 time but never caught a holder inside its critical section/,
    );
    expect(r.faultHits['pause-holder']).toMatchObject({ fired: 1, hit: 0 });
  });

  it('the same history checked without a fault list stays valid', () => {
    const r = checkRun(missed, { fencing: false });
    expect(r.valid).toBe(true);
    expect(r.unknownReasons).toEqual([]);
  });

  it('an INVALID run stays INVALID whatever its faults did (false > unknown)', () => {
    // p0 and p1 both read 100; p1's write erases p0's: a lost update. pause-holder never fired.
    const h = history(
      ...read(0, 100, 0),
      ...read(1, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 1 }),
      invoke(1, 'write', writeValue(100, 120, 0)),
      ok(1, 'write', { ...writeValue(100, 120, 0), writeId: 2 }),
      finalRead(0, 100, 120, [row(1, 0, 100, 110, 0), row(2, 1, 100, 120, 0)]),
    );
    const r = checkRun(h, { fencing: false, faults: ['pause-holder'] });
    expect(r.lostUpdates).toBe(1);
    expect(r.valid).toBe(false);
    expect(r.unknownReasons).toHaveLength(1);
  });
});
