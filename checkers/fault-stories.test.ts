import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../harness/analyze.ts';
import { CLIENT_EXITED } from '../history/client-exit.ts';
import { FAULT_CATALOGUE } from '../faults/catalogue.ts';
import { checkRun } from './check-run.ts';
import { faultHitReasons, faultHits } from './fault-hits.ts';
import type { FaultShot } from '../faults/judging/fault-shot.ts';
import {
  fail,
  finalRead,
  history,
  info,
  invoke,
  ok,
  read,
  row,
  writeValue,
  type Event,
} from '../test/support/test-history.ts';

/**
 * Each aimed fault's story on literal histories (times: 1 ms per line unless an event sets one): a completed story
 * is a hit; each missing step is a miss that names it; a shot the run's end cut short is a miss.
 */

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

/** p0 enters its section on account 0: acquire #0-1, read #2-3 (at 3 ms). */
const p0Section = (): Event[] => [
  invoke(0, 'acquire', { account: 0 }),
  ok(0, 'acquire', { account: 0 }),
  ...read(0, 100, 0),
];
/** Another client (p1) acquires account 0, reads it and commits a write from 100 to 120: six lines. */
const p1Writes = (): Event[] => [
  invoke(1, 'acquire', { account: 0 }),
  ok(1, 'acquire', { account: 0 }),
  ...read(1, 100, 0),
  invoke(1, 'write', writeValue(100, 120, 0)),
  ok(1, 'write', { ...writeValue(100, 120, 0), writeId: 1 }),
];
const p0Write = (outcome: 'ok' | 'stale' | 'died' | 'lock-lost' = 'ok'): Event[] => {
  const w = writeValue(100, 110, 0);
  return [
    invoke(0, 'write', w),
    outcome === 'ok'
      ? ok(0, 'write', { ...w, writeId: 2 })
      : outcome === 'stale'
        ? fail(0, 'write', w, 'stale-token')
        : outcome === 'lock-lost'
          ? fail(0, 'write', w, 'lock-lost')
          : info(0, 'write', w, CLIENT_EXITED),
  ];
};
/** The aim of a fault that struck p0's section at line 4 (4 ms), after its read at 3 ms. */
const aim = (extra: Record<string, unknown> = {}) => ({
  process: 0,
  account: 0,
  readIndex: 3,
  atIndex: 4,
  readTime: 3_000_000,
  atTime: 4_000_000,
  ...extra,
});
const steps = (s: FaultShot) => s.story!.map((x) => `${x.id}:${x.status}`);
const shotOf = (f: string, events: (Event | Event[])[]) => faultHits(history(...events))[f].shots[0];

describe('pause-holder: stopped → lease expired → another client wrote → resumed → the holder wrote', () => {
  const start = (ttlMs = 2) => nemesis('pause-holder', 'start', { ttlMs, aim: aim() }, ['client p0 (pid 9)']);
  const whole = (ttlMs = 2, end = nemesis('pause-holder', 'end'), last = p0Write()) => [
    p0Section(),
    start(ttlMs),
    p1Writes(),
    end,
    last,
    finalRead(0, 100, 110, [row(1, 1, 100, 120, 0), row(2, 0, 100, 110, 0)]),
  ];

  it('a completed story is a hit, told step by step with the ops that prove it', () => {
    const shot = shotOf('pause-holder', whole());
    expect(shot.hit).toBe(true);
    expect(steps(shot)).toEqual([
      'stopped:done',
      'lease-expired:done',
      'other-wrote:done',
      'resumed:done',
      'holder-wrote:done',
    ]);
    expect(shot.evidence).toBe(
      'paused p0 while p0 was inside its critical section on account 0 (read #3, struck at 4.0 ms) → stopped 7 ms ≥ the TTL (2 ms) → p1 acquired #6, read #8, wrote #10 → p0 resumed at 0.01 s → p0 wrote #12',
    );
  });

  it('a write refused as stale completes the story too: the fence held', () => {
    const shot = shotOf('pause-holder', whole(2, nemesis('pause-holder', 'end'), p0Write('stale')));
    expect(shot.hit).toBe(true);
    expect(shot.story!.at(-1)).toEqual({
      id: 'holder-wrote',
      status: 'held',
      evidence: "p0's write #12 was refused (stale-token)",
    });
    const lost = shotOf('pause-holder', whole(2, nemesis('pause-holder', 'end'), p0Write('lock-lost')));
    expect(lost.story!.at(-1)).toMatchObject({ status: 'held', evidence: /learned it had lost the lock/ });
  });

  it('a pause shorter than the TTL is a miss at lease-expired', () => {
    const shot = shotOf('pause-holder', whole(50));
    expect(shot.hit).toBe(false);
    expect(steps(shot)).toEqual([
      'stopped:done',
      'lease-expired:missing',
      'other-wrote:not-reached',
      'resumed:not-reached',
      'holder-wrote:not-reached',
    ]);
    expect(shot.evidence).toMatch(/→ missing lease-expired: p0 was stopped 7 ms, less than the TTL \(50 ms\)/);
  });

  it('no other client taking the lock while the holder was stopped is a miss at other-wrote', () => {
    const none = shotOf('pause-holder', [
      p0Section(),
      start(),
      invoke(2, 'read', { account: 1 }),
      nemesis('pause-holder', 'end'),
      p0Write(),
    ]);
    expect(none.story!.find((s) => s.status === 'missing')).toEqual({
      id: 'other-wrote',
      status: 'missing',
      evidence: 'no other client acquired account 0 before p0 resumed',
    });
    const noWrite = shotOf('pause-holder', [
      p0Section(),
      start(),
      invoke(1, 'acquire', { account: 0 }),
      ok(1, 'acquire', { account: 0 }),
      nemesis('pause-holder', 'end'),
      p0Write(),
    ]);
    expect(noWrite.story!.find((s) => s.status === 'missing')?.evidence).toBe(
      'p1 acquired account 0 (#6) before p0 resumed, but read it only after',
    );
    const readNoWrite = shotOf('pause-holder', [
      p0Section(),
      start(),
      invoke(1, 'acquire', { account: 0 }),
      ok(1, 'acquire', { account: 0 }),
      ...read(1, 100, 0),
      nemesis('pause-holder', 'end'),
      p0Write(),
    ]);
    expect(readNoWrite.story!.find((s) => s.status === 'missing')?.evidence).toBe(
      'p1 acquired account 0 (#6) and read it before p0 resumed, but never committed its write',
    );
  });

  it("the other client's write may land after the holder's: its read before the resume is what loses an update", () => {
    // A watchdog lock paused for less than its think time (examples/broken/renew-without-owner.ts): p1 takes the
    // expired lock and reads while p0 is stopped; p0 resumes and writes first, p1's write lands on top of it.
    const w1 = writeValue(100, 120, 0);
    const shot = shotOf('pause-holder', [
      p0Section(),
      start(),
      invoke(1, 'acquire', { account: 0 }),
      ok(1, 'acquire', { account: 0 }),
      ...read(1, 100, 0),
      nemesis('pause-holder', 'end'),
      p0Write(),
      invoke(1, 'write', w1),
      ok(1, 'write', { ...w1, writeId: 1 }),
    ]);
    expect(steps(shot)).toEqual([
      'stopped:done',
      'lease-expired:done',
      'other-wrote:done',
      'resumed:done',
      'holder-wrote:done',
    ]);
    expect(shot.story![2].evidence).toBe('p1 acquired #6, read #8, wrote #13');
  });

  it("a pause the run's end cut short is a miss at resumed", () => {
    const shot = shotOf('pause-holder', whole(2, nemesis('pause-holder', 'end', { cutShort: true })));
    expect(shot.hit).toBe(false);
    expect(shot.story!.find((s) => s.status === 'missing')?.id).toBe('resumed');
    // No end record at all: the history ended with the holder stopped.
    const open = shotOf('pause-holder', [p0Section(), start(), p1Writes()]);
    expect(open.story!.find((s) => s.status === 'missing')).toMatchObject({
      id: 'lease-expired',
      evidence: /still stopped/,
    });
  });

  it('a holder that died, or never wrote, is a miss at holder-wrote', () => {
    const died = shotOf('pause-holder', whole(2, nemesis('pause-holder', 'end'), p0Write('died')));
    expect(died.story!.at(-1)).toEqual({
      id: 'holder-wrote',
      status: 'missing',
      evidence: 'p0 died before its write #12 completed',
    });
    const silent = shotOf('pause-holder', [p0Section(), start(), p1Writes(), nemesis('pause-holder', 'end')]);
    expect(silent.story!.at(-1)).toMatchObject({ status: 'missing', evidence: 'p0 invoked no write after its read' });
  });

  it('a stop that missed the section is a miss at stopped; a lock process left running too', () => {
    const late = shotOf('pause-holder', [
      p0Section(),
      { ...invoke(0, 'write', writeValue(100, 110, 0)), time: 3_500_000 },
      start(),
      p1Writes(),
      nemesis('pause-holder', 'end'),
    ]);
    expect(late.story!.map((s) => s.status)).toEqual([
      'missing',
      'not-reached',
      'not-reached',
      'not-reached',
      'not-reached',
    ]);
    expect(late.evidence).toBe(
      'missing stopped: p0 had left its critical section (#4: write invoke) before the fault struck (at 4.0 ms)',
    );
    const ranOn = shotOf('pause-holder', [
      p0Section(),
      nemesis('pause-holder', 'start', { ttlMs: 2, aim: aim(), lockPid: 91, lockStopped: false }),
      p1Writes(),
      nemesis('pause-holder', 'end'),
      p0Write(),
    ]);
    expect(ranOn.story![0]).toMatchObject({ status: 'missing', evidence: /lock process \(pid 91\) was not stopped/ });
    // Stopped with its lock process: the first step names that process (it was dropped once, when stories came in).
    const both = shotOf('pause-holder', [
      p0Section(),
      nemesis('pause-holder', 'start', {
        ttlMs: 2,
        aim: aim(),
        lockPid: 90,
        lockStopped: true,
        lockTree: { by: 'cgroup.freeze', pids: [90, 93], running: [] },
      }),
      p1Writes(),
      nemesis('pause-holder', 'end'),
      p0Write(),
    ]);
    expect(both.hit).toBe(true);
    expect(both.story![0].evidence).toMatch(
      /, its lock process \(pid 90\) with it, all 2 processes of its tree \(held by cgroup.freeze\)$/,
    );
  });

  it("the verdict's reason names the furthest shot's missing step and what it stands for", () => {
    const h = history(
      p0Section(),
      start(50),
      p1Writes(),
      nemesis('pause-holder', 'end'),
      p0Write('stale'),
      finalRead(0, 100, 120, [row(1, 1, 100, 120, 0)]),
    );
    expect(faultHitReasons(faultHits(h), ['pause-holder'])).toEqual([
      'pause-holder fired 1 time but its story never completed (the furthest shot, #4, stopped short of lease-expired, "it stayed stopped for at least the TTL: its lease ran out": p0 was stopped 7 ms, less than the TTL (50 ms): its lease may not have run out)',
    ]);
    // A clean run whose only shot told no whole story is no evidence of safety.
    expect(checkRun(h, { fencing: false, faults: ['pause-holder'] }).valid).toBe('unknown');
  });
});

describe('kill-holder: killed → died → another client acquired', () => {
  const died: Event = {
    process: 0,
    type: 'info',
    f: 'client-exit',
    value: { slot: 0, code: null, signal: 'SIGKILL' },
    error: CLIENT_EXITED,
  };
  const start = nemesis('kill-holder', 'start', { ttlMs: 2, aim: aim() }, ['client p0 (pid 9)']);

  it('a completed story is a hit', () => {
    const shot = shotOf('kill-holder', [
      p0Section(),
      start,
      died,
      nemesis('kill-holder', 'end'),
      invoke(5, 'acquire', { account: 0 }),
      ok(5, 'acquire', { account: 0 }),
    ]);
    expect(steps(shot)).toEqual(['killed:done', 'died:done', 'freed:done']);
    expect(shot.story![2].evidence).toBe('p5 acquired account 0 (#8) 4 ms after the kill');
  });

  it('a holder that did not die, or a lock nobody took afterwards, is a miss naming the step', () => {
    expect(shotOf('kill-holder', [p0Section(), start, nemesis('kill-holder', 'end')]).story![1]).toEqual({
      id: 'died',
      status: 'missing',
      evidence: 'p0 has no client exit after the kill: it did not die there',
    });
    expect(shotOf('kill-holder', [p0Section(), start, died, nemesis('kill-holder', 'end')]).story![2]).toEqual({
      id: 'freed',
      status: 'missing',
      evidence: 'no other client acquired account 0 after the kill before the history ended',
    });
  });
});

describe('restart-empty, clock, failover: struck → another client granted and read → the holder wrote → so did the other', () => {
  const redisAim = aim({ struck: ['redis[0]'], keysOn: { 'redis[0]': ['lock:account-0'] }, needed: 1 });
  const cases = [
    ['restart-empty', { aim: redisAim }],
    ['clock', { aim: redisAim }],
    ['failover', { aim: aim({ struck: ['redis-replica'] }), keyOnPromoted: false }],
  ] as const;
  /** p1 granted account 0 and reading 100 (lines 5–8, after the strike at 4). */
  const p1Enters = (): Event[] => [
    invoke(1, 'acquire', { account: 0 }),
    ok(1, 'acquire', { account: 0 }),
    ...read(1, 100, 0),
  ];
  const p1Write = (outcome: 'ok' | 'stale' = 'ok'): Event[] => {
    const w = writeValue(100, 120, 0);
    return [
      invoke(1, 'write', w),
      outcome === 'ok' ? ok(1, 'write', { ...w, writeId: 2 }) : fail(1, 'write', w, 'stale-token'),
    ];
  };

  for (const [f, params] of cases) {
    it(`${f}: granted to another client that read before the holder's write completed, then both wrote: a hit`, () => {
      const shot = shotOf(f, [
        p0Section(),
        nemesis(f, 'start', params),
        p1Enters(),
        nemesis(f, 'end'),
        p0Write(),
        p1Write(),
      ]);
      expect(steps(shot)).toEqual([
        'struck:done',
        ...(f === 'restart-empty' ? ['restarted:done'] : []),
        'granted:done',
        'holder-wrote:done',
        'both-wrote:done',
      ]);
      const told = Object.fromEntries(shot.story!.map((x) => [x.id, x.evidence]));
      expect(told.granted).toBe('p1 was granted account 0 (#6) at 0.01 s and read it (#8)');
      expect(told['both-wrote']).toBe('p1 wrote #12');
      // The other's write refused as stale is the fence holding: the story is complete.
      const fenced = shotOf(f, [
        p0Section(),
        nemesis(f, 'start', params),
        p1Enters(),
        nemesis(f, 'end'),
        p0Write(),
        p1Write('stale'),
      ]);
      expect(steps(fenced).at(-1)).toBe('both-wrote:held');
      expect(fenced.hit).toBe(true);
    });

    it(`${f}: another client kept waiting until the holder wrote is no story (down or slow, not shown to hold)`, () => {
      const shot = shotOf(f, [
        p0Section(),
        nemesis(f, 'start', params),
        invoke(1, 'acquire', { account: 0 }),
        nemesis(f, 'end'),
        p0Write(),
        ok(1, 'acquire', { account: 0 }),
      ]);
      expect(shot.hit).toBe(false);
      expect(shot.story!.find((x) => x.status === 'missing')).toEqual({
        id: 'granted',
        status: 'missing',
        evidence: 'no other client was granted account 0 while p0 held it',
      });
    });

    it(`${f}: nobody asking for the lock, a grant after the holder wrote, or one read after it, is a miss`, () => {
      const idle = shotOf(f, [p0Section(), nemesis(f, 'start', params), nemesis(f, 'end'), p0Write()]);
      expect(idle.story!.find((x) => x.id === 'granted')).toEqual({
        id: 'granted',
        status: 'missing',
        evidence: 'no other client was granted account 0 while p0 held it',
      });
      const after = shotOf(f, [p0Section(), nemesis(f, 'start', params), nemesis(f, 'end'), p0Write(), p1Enters()]);
      expect(after.hit).toBe(false);
      // Granted in time, but it read only after the holder's write: it read that write, nothing could be lost.
      const lateRead = shotOf(f, [
        p0Section(),
        nemesis(f, 'start', params),
        invoke(1, 'acquire', { account: 0 }),
        ok(1, 'acquire', { account: 0 }),
        nemesis(f, 'end'),
        p0Write(),
        ...read(1, 110, 1),
        p1Write(),
      ]);
      expect(lateRead.story!.find((x) => x.id === 'granted')).toMatchObject({
        status: 'missing',
        evidence: /read it only after p0's write completed/,
      });
    });
  }

  it("restart-empty: a remedy stops the story at restarted (held), from the fault's own records", () => {
    const story = (params: Record<string, unknown>) =>
      shotOf('restart-empty', [
        p0Section(),
        nemesis('restart-empty', 'start', { aim: redisAim, killed: ['redis[0]'], ttlMs: 2, ...params }),
        nemesis('restart-empty', 'end'),
        p0Write(),
      ]);
    const delayed = story({ restartDelayMs: 2, wiped: true });
    expect(delayed.hit).toBe(true);
    expect(steps(delayed)).toEqual([
      'struck:done',
      'restarted:held',
      'granted:not-reached',
      'holder-wrote:not-reached',
      'both-wrote:not-reached',
    ]);
    expect(delayed.story![1].evidence).toBe(
      'redis[0] stayed down 2 ms ≥ the TTL (2 ms): every lease they granted ran out first',
    );
    expect(story({ restartDelayMs: 0, wiped: false }).story![1]).toMatchObject({
      status: 'held',
      evidence: 'redis[0] came back with their AOF: the key returned',
    });
    // Back only after the holder's write: the window closed before the lock could be granted again.
    const late = shotOf('restart-empty', [
      p0Section(),
      nemesis('restart-empty', 'start', { aim: redisAim, killed: ['redis[0]'], ttlMs: 2, restartDelayMs: 0 }),
      p0Write(),
      nemesis('restart-empty', 'end'),
    ]);
    expect(late.story![1]).toMatchObject({
      status: 'missing',
      evidence: /answered again only at 0.01 s, after p0's write completed \(#6\)/,
    });
  });

  it('a clock jump on etcd members, or a failover whose promoted replica had the key, is a miss at struck', () => {
    const etcd = shotOf('clock', [
      p0Section(),
      nemesis('clock', 'start', { aim: aim({ struck: ['etcd[1]'] }) }),
      nemesis('clock', 'end'),
    ]);
    expect(etcd.story![0]).toMatchObject({
      id: 'struck',
      status: 'missing',
      evidence: /etcd\[1\]: etcd is a Go binary/,
    });
    const kept = shotOf('failover', [
      p0Section(),
      nemesis('failover', 'start', { aim: aim(), keyOnPromoted: true }),
      nemesis('failover', 'end'),
    ]);
    expect(kept.story![0].evidence).toBe(
      'the promoted replica already had the lock key: no one else could win the lock',
    );
  });

  it('restart-empty on fewer nodes than the lock needs broken is a miss at struck', () => {
    const few = aim({ struck: ['redis[0]'], keysOn: { 'redis[0]': ['k'], 'redis[1]': ['k'] }, needed: 2 });
    expect(shotOf('restart-empty', [p0Section(), nemesis('restart-empty', 'start', { aim: few })]).evidence).toBe(
      'missing struck: it struck 1 of the 2 nodes the lock needed broken',
    );
  });
});

describe('delay-write: the write held → a TTL → another client wrote → delivered → the late write arrived', () => {
  const start = nemesis('delay-write', 'start', { ttlMs: 2, process: 0, account: 0, readIndex: 3 });
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('delay-write', 'end', {
      hit: true,
      process: 0,
      account: 0,
      writeTime: 5_000_000,
      writeHeldMs: 5,
      heldBytes: { pg: 80 },
      ...params,
    });
  const w = writeValue(100, 110, 0);
  const story = (e = end(), last: Event = ok(0, 'write', { ...w, writeId: 2 })) => [
    p0Section(),
    start,
    invoke(0, 'write', w),
    p1Writes(),
    e,
    last,
  ];

  it('a completed story is a hit', () => {
    const shot = shotOf('delay-write', story());
    expect(steps(shot)).toEqual([
      'write-held:done',
      'lease-expired:done',
      'other-wrote:done',
      'delivered:done',
      'holder-wrote:done',
    ]);
    expect(shot.evidence).toBe(
      "p0's write #5 went into the hold → held 5 ms ≥ the TTL (2 ms) → p1 acquired #7, read #9, wrote #11 → delivered at 0.01 s → p0 wrote #5",
    );
  });

  it('each missing step is a miss that names it', () => {
    const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;
    expect(gap(shotOf('delay-write', story(end({ hit: false }))))).toBe('write-held');
    expect(gap(shotOf('delay-write', story(end({ writeHeldMs: 1 }))))).toBe('lease-expired');
    expect(
      gap(
        shotOf('delay-write', [p0Section(), start, invoke(0, 'write', w), end(), ok(0, 'write', { ...w, writeId: 2 })]),
      ),
    ).toBe('other-wrote');
    expect(gap(shotOf('delay-write', story(end({ cutShort: true }))))).toBe('delivered');
    expect(gap(shotOf('delay-write', story(end(), info(0, 'write', w, CLIENT_EXITED))))).toBe('holder-wrote');
  });
});

describe("kill-session: the holder's lock session ended → another client granted and read → the holder wrote → so did the other", () => {
  const ended = { aim: aim(), backends: [4242] };
  const p1Enters = (): Event[] => [
    invoke(1, 'acquire', { account: 0 }),
    ok(1, 'acquire', { account: 0 }),
    ...read(1, 100, 0),
  ];

  it('a library that ends the holder while it thinks (its write a fail, lock-lost) completes the story: the lock was lost and the holder did not write', () => {
    const shot = shotOf('kill-session', [
      p0Section(),
      nemesis('kill-session', 'start', ended),
      p1Enters(),
      nemesis('kill-session', 'end'),
      p0Write('lock-lost'),
    ]);
    expect(steps(shot)).toEqual(['struck:done', 'granted:done', 'holder-wrote:held', 'both-wrote:not-reached']);
    expect(shot.hit).toBe(true);
  });

  it('a holder that writes on after its session ended is the double grant, both writes: a hit', () => {
    const w = writeValue(100, 120, 0);
    const shot = shotOf('kill-session', [
      p0Section(),
      nemesis('kill-session', 'start', ended),
      p1Enters(),
      nemesis('kill-session', 'end'),
      p0Write(),
      invoke(1, 'write', w),
      ok(1, 'write', { ...w, writeId: 2 }),
    ]);
    expect(steps(shot)).toEqual(['struck:done', 'granted:done', 'holder-wrote:done', 'both-wrote:done']);
  });

  it('a shot that found no session holding an advisory lock ended nothing: a miss at struck', () => {
    const shot = shotOf('kill-session', [
      p0Section(),
      nemesis('kill-session', 'start', { aim: aim(), backends: [] }),
      p1Enters(),
    ]);
    expect(shot.story![0]).toMatchObject({
      id: 'struck',
      status: 'missing',
      evidence: 'no session of the holder held an advisory lock: nothing was ended',
    });
  });
});

describe('every fault with a story has a judge that tells it', () => {
  it('each story step has a check (no "no check for it" on a completed literal story)', () => {
    for (const [f, facts] of Object.entries(FAULT_CATALOGUE)) {
      if (!facts.story) continue;
      const shot = faultHits(history(nemesis(f, 'start')))[f].shots[0];
      expect(
        shot.story?.map((s) => s.id),
        f,
      ).toEqual(facts.story.map((s) => s.id));
      expect(shot.evidence, f).not.toMatch(/no check for it/);
    }
  });
});

describe('the stored curator run whose second pause the run ended after 1.1 s (issue 33)', () => {
  it('checks as unknown, naming the missing step, where it used to be VALID', () => {
    const src = path.join(import.meta.dirname, '../test/fixtures/runs/curator-paused-holder-story-less');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-curator-'));
    try {
      for (const f of ['history.jsonl', 'test.json']) fs.copyFileSync(path.join(src, f), path.join(dir, f));
      const analysis = analyze(dir);
      expect(analysis.ok).toBe(true);
      if (!analysis.ok) return;
      expect(analysis.results.lostUpdates).toBe(0);
      expect(analysis.results.valid).toBe('unknown');
      const hits = analysis.results.faultHits['pause-holder'];
      expect(hits).toMatchObject({ fired: 2, hit: 0 });
      expect(hits.shots[1].story!.find((s) => s.status === 'missing')).toEqual({
        id: 'lease-expired',
        status: 'missing',
        evidence: 'p2 was stopped 1114 ms, less than the TTL (2000 ms): its lease may not have run out',
      });
      expect(analysis.results.unknownReasons[0]).toMatch(
        /^pause-holder fired 2 times but its story never completed \(the furthest shot, #346, stopped short of lease-expired/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
