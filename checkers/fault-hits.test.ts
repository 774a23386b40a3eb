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
      'missing struck: p0 had left its critical section (#4: write invoke) before the fault struck (at #6)',
    );
    expect(faultHitReasons(hits, ['restart-empty'])).toEqual([
      'restart-empty fired 1 time but its story never completed (the furthest shot, #6, is missing struck — as many of the Redis nodes holding the key as break the lock were killed (and wiped) while the holder was inside its critical section: p0 had left its critical section (#4: write invoke) before the fault struck (at #6))',
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
      [false, "missing stopped: history #3 is not p1's read of account 0, which the fault says it caught"],
      [false, 'missing stopped: no aim recorded with it (a run from before fencepost recorded where faults landed)'],
    ]);
  });

  // Was "counts faults that do not aim at the lock without judging them" (hit: null, no reason): every fault is
  // now judged by its own evidence, and one that fired without it is a reason against VALID.
  it('partition: a hit only when its proxies held real bytes (end record `heldBytes`)', () => {
    const hits = faultHits(
      history(
        nemesis('partition', 'start', { durationMs: 3000, proxies: ['etcd[0]', 'etcd[2]'] }, ['clients ⇹ etcd[0]']),
        nemesis('partition', 'end', { heldBytes: { 'etcd[0]': 412, 'etcd[2]': 0 } }),
        nemesis('partition', 'start', { durationMs: 3000, proxies: ['etcd[1]'] }),
        nemesis('partition', 'end', { heldBytes: { 'etcd[1]': 0 } }),
        nemesis('partition', 'start'),
        nemesis('partition', 'end'),
        nemesis('partition', 'start'),
      ),
    );
    expect(hits).toEqual({
      partition: {
        fired: 4,
        hit: 1,
        shots: [
          { index: 0, hit: true, evidence: 'held 412 bytes (etcd[0]: 412)' },
          { index: 2, hit: false, evidence: 'no client sent a byte through etcd[1] meanwhile' },
          {
            index: 4,
            hit: false,
            evidence: 'its end record counts no bytes (a run from before the proxies counted them)',
          },
          { index: 6, hit: false, evidence: 'no end record: the run ended before it was healed' },
        ],
      },
    });
    expect(faultHitReasons(hits, ['partition'])).toEqual([]);
  });

  it('server partitions: a hit when the drops held bytes between the sides, with sides, clients and views as evidence', () => {
    const start = {
      grudge: 'isolate-leader',
      leader: 'etcd[2]',
      sides: [
        { members: ['etcd[2]'], clients: ['client 0 (p5)'] },
        { members: ['etcd[0]', 'etcd[1]'], clients: [] },
      ],
    };
    const hits = faultHits(
      history(
        nemesis('isolate-leader', 'start', start),
        nemesis('isolate-leader', 'end', {
          totalHeldBytes: 31021,
          heldPackets: 62,
          viewsDuring: { 'etcd[0]': 'leader etcd[1]', 'etcd[1]': 'leader etcd[1]', 'etcd[2]': 'no answer' },
        }),
        nemesis('isolate-leader', 'start', start),
        nemesis('isolate-leader', 'end', { totalHeldBytes: 0, heldPackets: 0 }),
        nemesis('majority-minority', 'start', start),
        nemesis('majority-minority', 'end', {}),
        nemesis('bridge', 'start', start),
      ),
    );
    expect(hits['isolate-leader'].shots).toEqual([
      {
        index: 0,
        hit: true,
        evidence:
          'held 31021 bytes in 62 packets between {etcd[2]} with client 0 (p5) and {etcd[0], etcd[1]} (no client connected); leader etcd[2] at the start; before the heal: etcd[0]: leader etcd[1], etcd[1]: leader etcd[1], etcd[2]: no answer',
      },
      {
        index: 2,
        hit: false,
        evidence:
          'no member sent a byte across the cut ({etcd[2]} with client 0 (p5) | {etcd[0], etcd[1]} (no client connected)) meanwhile',
      },
    ]);
    expect(hits['majority-minority'].shots[0]).toMatchObject({
      hit: false,
      evidence: 'its end record counts no held bytes',
    });
    expect(hits.bridge.shots[0]).toMatchObject({ hit: false, evidence: /no end record/ });
    expect(faultHitReasons(hits, ['isolate-leader', 'majority-minority', 'bridge'])).toEqual([
      'majority-minority fired 1 time but never held a byte between the majority and the minority of the servers (first miss, #4: its end record counts no held bytes)',
      'bridge fired 1 time but never held a byte between the two halves of the servers (first miss, #6: no end record: the run ended before the partition was healed)',
    ]);
  });

  it('partition and latency that held nothing are reasons: "X fired N times but …"', () => {
    const hits = faultHits(
      history(
        nemesis('partition', 'start'),
        nemesis('partition', 'end', { heldBytes: { pg: 0 } }),
        nemesis('latency', 'start', { oneWayMs: 25 }),
        nemesis('latency', 'end', { heldBytes: { pg: 0 } }),
      ),
    );
    expect(hits.latency).toMatchObject({ fired: 1, hit: 0 });
    expect(faultHitReasons(hits, ['partition', 'latency'])).toEqual([
      'partition fired 1 time but never held a byte between the clients and the servers (first miss, #0: no client sent a byte through pg meanwhile)',
      'latency fired 1 time but never delayed a byte between the clients and the servers (first miss, #2: no client sent a byte through pg meanwhile)',
    ]);
    const delayed = faultHits(
      history(nemesis('latency', 'start', { oneWayMs: 25 }), nemesis('latency', 'end', { heldBytes: { pg: 96 } })),
    );
    expect(delayed.latency.shots[0]).toEqual({ index: 0, hit: true, evidence: 'delayed 96 bytes (pg: 96)' });
  });

  it('pause-node: a hit when it stopped live processes of a server, naming whether it was the leader', () => {
    const hits = faultHits(
      history(
        nemesis('pause-node', 'start', { pids: [41, 42], stopped: true, leader: true }, ['etcd leader etcd[1]']),
        nemesis('pause-node', 'end'),
        nemesis('pause-node', 'start', { pids: [43], stopped: true, leader: false }, ['etcd[2]']),
        nemesis('pause-node', 'end'),
        nemesis('pause-node', 'start', { pids: [], stopped: false, leader: false }, ['etcd[0]']),
        nemesis('pause-node', 'end'),
      ),
    );
    expect(hits['pause-node'].shots.map((s) => [s.hit, s.evidence])).toEqual([
      [true, 'stopped etcd leader etcd[1] (pid 41, 42, the leader)'],
      [true, 'stopped etcd[2] (pid 43, not the leader)'],
      [false, 'it stopped no live process of etcd[0]'],
    ]);
    expect(hits['pause-node'].hit).toBe(2);
  });

  it('pause-client: a hit when it stopped a live client', () => {
    const hits = faultHits(
      history(
        nemesis('pause-client', 'start', { slot: 1, pid: 77, stopped: true }, ['client p1 (pid 77)']),
        nemesis('pause-client', 'end'),
        nemesis('pause-client', 'start', { slot: 2, pid: 78, stopped: false }, ['client p2 (pid 78)']),
        nemesis('pause-client', 'end'),
      ),
    );
    expect(hits['pause-client'].shots.map((s) => [s.hit, s.evidence])).toEqual([
      [true, 'stopped client p1 (pid 77)'],
      [false, 'client p2 (pid 78) was not a live process when stopped'],
    ]);
  });

  it('pause-client with a lock process (a lock in another language): a hit only when that process stopped too', () => {
    const target = (pid: number) => `client p1 (pid 77, lock process pid ${pid}: /usr/bin/python3 lock.py)`;
    const hits = faultHits(
      history(
        nemesis('pause-client', 'start', { slot: 1, pid: 77, lockPid: 90, lockStopped: true, stopped: true }, [
          target(90),
        ]),
        nemesis('pause-client', 'end'),
        nemesis('pause-client', 'start', { slot: 1, pid: 77, lockPid: 91, lockStopped: false, stopped: true }, [
          target(91),
        ]),
        nemesis('pause-client', 'end'),
      ),
    );
    expect(hits['pause-client'].shots.map((s) => [s.hit, s.evidence])).toEqual([
      [true, `stopped ${target(90)}`],
      [false, "its lock process (pid 91) was not stopped with it: the lock's own threads kept running"],
    ]);
  });

  it('kill: a hit only when the killed member restarted and answered a probe', () => {
    const hits = faultHits(
      history(
        nemesis('kill', 'start', { leader: true, withData: true }, ['zk leader zk[0]']),
        nemesis('kill', 'end', { restartedInMs: 850, rejoined: true }),
        nemesis('kill', 'start', { leader: false }, ['zk[1]']),
        {
          ...nemesis('kill', 'end', { restartedInMs: 900, rejoined: false }),
          value: {
            phase: 'end',
            targets: [],
            params: { rejoined: false },
            note: 'zk[1] did not answer after its restart: ECONNREFUSED',
          },
        },
        nemesis('kill', 'start', { leader: false }, ['zk[2]']),
      ),
    );
    expect(hits.kill.shots.map((s) => [s.hit, s.evidence])).toEqual([
      [true, 'killed zk leader zk[0]; it restarted with its data and answered a probe 850 ms later'],
      [
        false,
        'zk[1] was killed but did not answer a probe after its restart (zk[1] did not answer after its restart: ECONNREFUSED)',
      ],
      [false, 'the run ended before zk[2] was restarted'],
    ]);
    expect(faultHitReasons(faultHits(history(nemesis('kill', 'start', {}, ['zk[2]']))), ['kill'])).toEqual([
      'kill fired 1 time but never killed a server that then rejoined (first miss, #0: the run ended before zk[2] was restarted)',
    ]);
  });

  it("leader-churn: a hit when another member took over from a stopped leader (its end record's rounds)", () => {
    const start = nemesis('leader-churn', 'start', { pids: [41] }, ['etcd leader etcd[0]']);
    const shots = faultHits(
      history(
        start,
        nemesis('leader-churn', 'end', {
          rounds: [
            { stopped: 'etcd[0]', next: 'etcd[2]', stoppedMs: 1300 },
            { stopped: 'etcd[2]', next: null, stoppedMs: 800, cut: true },
          ],
          leaderChanges: 1,
        }),
        start,
        nemesis('leader-churn', 'end', { rounds: [{ stopped: 'etcd[0]', next: null, stoppedMs: 5000 }] }),
        start,
      ),
    )['leader-churn'].shots;
    expect(shots.map((s) => [s.hit, s.evidence])).toEqual([
      [true, '1 leader change: etcd[0] stopped → etcd[2] led after 1300 ms'],
      [false, 'no other member took over while etcd[0] was stopped 5000 ms'],
      [false, 'the run ended before the churn that began with etcd leader etcd[0] was healed'],
    ]);
  });

  it('clock-strobe: a hit when it moved the clock of a lock server the shim can move', () => {
    const hits = faultHits(
      history(
        nemesis('clock-strobe', 'start', { moved: ['redis[0]', 'redis[1]'] }),
        nemesis('clock-strobe', 'end'),
        nemesis('clock-strobe', 'start', { moved: [] }),
        nemesis('clock-strobe', 'end'),
        nemesis('clock-strobe', 'start', { offsetMs: 30000 }),
        nemesis('clock-strobe', 'end'),
      ),
    );
    expect(hits['clock-strobe'].shots.map((s) => [s.hit, s.evidence])).toEqual([
      [true, 'strobed the clocks of redis[0], redis[1]'],
      [false, "the shim can move none of the lock's server clocks"],
      [false, 'no record of which server clocks it could move'],
    ]);
  });

  it('a fault whose start failed is a shot that missed, with the error', () => {
    const failed = (phase: 'start' | 'end', note: string): Event => ({
      process: 'nemesis',
      type: 'fail',
      f: 'pause-node',
      value: { phase, targets: [], note },
    });
    const hits = faultHits(
      history(failed('start', 'failed to start: kill ESRCH'), failed('end', 'nothing to undo: it never started')),
    );
    expect(hits['pause-node']).toEqual({
      fired: 1,
      hit: 0,
      shots: [{ index: 0, hit: false, evidence: 'failed to start: kill ESRCH' }],
    });
    expect(faultHitReasons(hits, ['pause-node'])).toEqual([
      'pause-node fired 1 time but never stopped a live server process (first miss, #0: failed to start: kill ESRCH)',
    ]);
  });
});

describe('faultHitReasons', () => {
  // Was "a targeted fault … never fired is a reason" with pause-client giving none: every fault of the run must fire.
  it('every fault of the run that never fired is a reason; one not in the run is not', () => {
    const never = (f: string) =>
      `${f} never fired: the history has no injection of it (the run ended before its turn, or the fault found no opportunity, e.g. no client entered its critical section where it could reach it: see the run's log); run longer or lower --nemesis-interval`;
    expect(faultHitReasons({}, ['clock', 'pause-client'])).toEqual([never('clock'), never('pause-client')]);
    expect(faultHitReasons({}, [])).toEqual([]);
    expect(faultHitReasons({}, ['restart-empty'], { 'restart-empty': 'no Redis' })).toEqual([
      'restart-empty never fired: the run left it out (no Redis); drop it from --nemesis',
    ]);
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
      /^pause-holder fired 1 time but its story never completed \(the furthest shot, #6, is missing stopped/,
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
