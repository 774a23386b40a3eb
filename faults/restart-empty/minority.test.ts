import { describe, expect, it } from 'vitest';
import { checkRun } from '../../checkers/check-run.ts';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import {
  fail,
  finalRead,
  history,
  invoke,
  ok,
  read,
  row,
  writeValue,
  type Event,
} from '../../test/support/test-history.ts';

/**
 * restart-empty's minority story on literal histories (1 ms a line): a script named two of the five masters holding
 * p0's key (a correct majority lock needs three broken). A lock that lets p1 in on what is left is caught as before;
 * one that keeps p1 out while p0 writes completes the story held — but only on a shot the script named, never a free
 * run's.
 */

const KEYS = Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`redis[${i}]`, ['lock:account-0']]));
const AIM = {
  process: 0,
  account: 0,
  readIndex: 3,
  atIndex: 4,
  readTime: 3_000_000,
  atTime: 4_000_000,
  struck: ['redis[0]', 'redis[1]'],
  keysOn: KEYS,
  needed: 3,
};
const NAMED = { named: ['redis[0]', 'redis[1]'] };

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown> = {}): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'restart-empty',
  value: { phase, targets: ['redis[0]', 'redis[1]'], params },
});
const start = (extra: Record<string, unknown> = NAMED, aim: Record<string, unknown> = AIM) =>
  nemesis('start', { aim, killed: aim.struck, masters: 5, ttlMs: 2000, restartDelayMs: 0, wiped: true, ...extra });
/** p0 acquires account 0 and reads 100 (lines 0–3). */
const p0Section = (): Event[] => [
  invoke(0, 'acquire', { account: 0 }),
  ok(0, 'acquire', { account: 0 }),
  ...read(0, 100, 0),
];
const W0 = writeValue(100, 110, 0);
const p0Write = (): Event[] => [invoke(0, 'write', W0), ok(0, 'write', { ...W0, writeId: 1 })];
const asks = invoke(1, 'acquire', { account: 0 });
const granted = ok(1, 'acquire', { account: 0 });

const shotOf = (events: (Event | Event[])[]): FaultShot => faultHits(history(...events))['restart-empty'].shots[0];
const steps = (s: FaultShot) => s.story!.map((x) => `${x.id}:${x.status}`);

describe('restart-empty on a minority a script named', () => {
  it('another client kept out while the holder wrote: the story is complete, held at granted (a hit)', () => {
    // p1 asks once the two answered again (line 5), is still waiting when p0's write completes (8), granted after.
    const shot = shotOf([p0Section(), start(), nemesis('end'), asks, p0Write(), granted]);
    expect(steps(shot)).toEqual([
      'struck:done',
      'restarted:done',
      'granted:held',
      'holder-wrote:not-reached',
      'both-wrote:not-reached',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.story![0].evidence).toMatch(
      /^killed redis\[0\], redis\[1\] while p0 .*; a minority named by the script: 2 of the 3 a correct majority lock needs broken$/,
    );
    expect(shot.story![2].evidence).toBe(
      "p1 asked for account 0 (#6) at 0.01 s, after redis[0], redis[1] answered again empty, and was not granted by 0.01 s, when p0's write #7 completed: the lock kept it out",
    );
    // Refused outright is kept out too.
    const refused = shotOf([p0Section(), start(), nemesis('end'), asks, fail(1, 'acquire', { account: 0 }), p0Write()]);
    expect(refused.story![2]).toMatchObject({ status: 'held', evidence: /was refused \(#7\)/ });
  });

  it('a lock that lets the other client in on the minority is caught as before: granted, both wrote', () => {
    const W1 = writeValue(100, 120, 0);
    const shot = shotOf([
      p0Section(),
      start(),
      nemesis('end'),
      asks,
      granted,
      ...read(1, 100, 0),
      p0Write(),
      invoke(1, 'write', W1),
      ok(1, 'write', { ...W1, writeId: 2 }),
    ]);
    expect(steps(shot)).toEqual([
      'struck:done',
      'restarted:done',
      'granted:done',
      'holder-wrote:done',
      'both-wrote:done',
    ]);
  });

  it('nobody asking once the nodes answered again, or asking while they were down, is no story', () => {
    const idle = shotOf([p0Section(), start(), nemesis('end'), p0Write()]);
    expect(idle.story![2]).toMatchObject({
      status: 'missing',
      evidence: "no other client asked for account 0 after redis[0], redis[1] answered again and before p0's write",
    });
    const early = shotOf([p0Section(), start(), asks, nemesis('end'), p0Write(), granted]);
    expect(early.hit).toBe(false);
    expect(early.story![2].status).toBe('missing');
  });

  it("a free run's shot is judged as before: fewer than needed is a miss at struck, a waiting client no story", () => {
    // The same history without the script's `named`: a free run never strikes a minority, and none counts.
    const free = shotOf([p0Section(), start({}), nemesis('end'), asks, p0Write(), granted]);
    expect(free.hit).toBe(false);
    expect(free.evidence).toBe('missing struck: it struck 2 of the 3 nodes the lock needed broken');
    // A named strike of as many as break the lock is the usual story: a client kept waiting proves nothing there.
    const majority = { ...AIM, struck: ['redis[0]', 'redis[1]', 'redis[2]'] };
    const named = shotOf([p0Section(), start({ named: majority.struck }, majority), nemesis('end'), asks, p0Write()]);
    expect(named.hit).toBe(false);
    expect(named.story![2]).toMatchObject({
      status: 'missing',
      evidence: 'no other client was granted account 0 while p0 held it',
    });
  });

  it("the verdict: VALID for the script's kept-out story, unknown for the same history as a free run's", () => {
    const run = (extra: Record<string, unknown>) =>
      checkRun(
        history(
          p0Section(),
          start(extra),
          nemesis('end'),
          asks,
          p0Write(),
          invoke(0, 'release', { account: 0 }),
          ok(0, 'release', { account: 0 }),
          granted,
          finalRead(0, 100, 110, [row(1, 0, 100, 110, 0)]),
        ),
        { fencing: false, faults: ['restart-empty'], evidence: { minWrites: 1, concurrency: 1 } },
      );
    expect(run(NAMED).valid).toBe(true);
    expect(run({}).valid).toBe('unknown');
  });
});
