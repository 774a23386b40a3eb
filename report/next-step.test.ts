import { describe, expect, it } from 'vitest';
import type { LockFinding } from '../locks/lock-finding.ts';
import { nextStep, type NextStepResults } from './next-step.ts';

const REDLOCK: LockFinding = { lock: 'redlock', doc: 'locks.md', token: 'none' };
const PLUGIN: LockFinding = { lock: './my-lock.ts', doc: 'your-lock.md', token: 'unknown' };
const V4: LockFinding = {
  lock: 'redlock-v4',
  doc: 'findings.md#redlock-v4--redlock420-what-npm-install-redlock-gives-its-only-dist-tag-is-latest',
  token: 'none',
  advice: 'prefer it to 5.0.0-beta.2.',
};

/** An INVALID run with 10 lost updates under three faults, and no broken promise. */
const LOST: NextStepResults = {
  valid: false,
  lostUpdates: 10,
  lostUpdatesByFault: { clock: 4, 'restart-empty': 3, 'pause-holder': 3 },
  unknownReasons: [],
  staleWritesRejected: 0,
  checkers: { promise: { valid: true, overlaps: [{ class: 'outlived', why: 'p3 paused' }] } as never },
};
const UNFENCED = { fencing: false, faults: ['clock', 'restart-empty', 'pause-holder'] };

describe('the "what to do" line', () => {
  it('tells an INVALID lock without a token to fence the write, naming the faults and linking its story', () => {
    const step = nextStep(LOST, REDLOCK, UNFENCED);
    expect(step.text).toMatch(
      /^fence the write: redlock has no fencing token, so no setting of it stops a holder that lost its lock without knowing from writing \(clock 4 · restart-empty 3 · pause-holder 3\) — make the place you write refuse a stale writer/,
    );
    expect(step.text).toContain('etcd or ZooKeeper with `--fencing`');
    expect(step.doc).toBe('docs/locks.md');
  });

  it("ends with the lock's own findings words, the ones docs/findings.md gives it", () => {
    const step = nextStep(LOST, V4, UNFENCED);
    expect(step.text).toMatch(/^fence the write: redlock-v4 has no fencing token/);
    // Its advice says how to fence it: the generic ways are not said twice.
    expect(step.text).toBe(
      'fence the write: redlock-v4 has no fencing token, so no setting of it stops a holder that lost its lock without knowing from writing (clock 4 · restart-empty 3 · pause-holder 3). With redlock-v4: prefer it to 5.0.0-beta.2.',
    );
    expect(step.doc).toBe(
      'docs/findings.md#redlock-v4--redlock420-what-npm-install-redlock-gives-its-only-dist-tag-is-latest',
    );
  });

  it('says the lock itself failed when it broke a promise, not that the caller should have fenced', () => {
    const broke: NextStepResults = {
      ...LOST,
      lostUpdates: 1,
      lostUpdatesByFault: { 'restart-empty': 1 },
      checkers: {
        promise: { valid: false, overlaps: [{ class: 'broke', why: 'granted p2 inside p1 lease' }] } as never,
      },
    };
    const { text } = nextStep(broke, REDLOCK, UNFENCED);
    expect(text).toMatch(/^the lock itself failed: .* \(1 broken promise; 1 lost \(restart-empty 1\)\)/);
    expect(text).not.toMatch(/^fence the write/);
  });

  it('names the holder the faults made: paused, slowed by its own clock, or one that lost its lock unknowing', () => {
    // Red before: a run that lost only under clock-rate-client was told of "a holder paused past its lease".
    const only = (fault: string) => ({ ...LOST, lostUpdatesByFault: { [fault]: 10 } });
    const clockRun = { fencing: false, faults: ['clock-rate-client'] };
    expect(nextStep(only('clock-rate-client'), REDLOCK, clockRun).text).toMatch(
      /^fence the write: redlock has no fencing token, so no setting of it stops a holder slowed past its lease by its own clock from writing \(clock-rate-client 10\)/,
    );
    expect(nextStep(only('pause-holder'), REDLOCK, UNFENCED).text).toMatch(/stops a holder paused past its lease/);
    expect(nextStep(only('restart-empty'), REDLOCK, UNFENCED).text).toMatch(
      /stops a holder that lost its lock without knowing/,
    );
  });

  it('tells a lock with a token to check it and rerun with --fencing', () => {
    const { text } = nextStep(LOST, { lock: 'etcd', doc: 'locks.md', token: 'token' }, UNFENCED);
    expect(text).toMatch(/^fence the write: .*etcd hands out a fencing token — check it where you write/);
    expect(text).toContain('rerun with `--fencing`');
  });

  it('blames the token, not the lock, when a fenced run lost updates', () => {
    const { text } = nextStep(
      LOST,
      { lock: 'simple-redis-mutex', doc: 'x', token: 'token' },
      { ...UNFENCED, fencing: true },
    );
    expect(text).toMatch(/^updates were lost although the run was fenced \(clock 4/);
    // Postgres fences by its version column without --fencing.
    expect(nextStep(LOST, { lock: 'postgres', doc: 'locks.md', token: 'own-fence' }, UNFENCED).text).toMatch(
      /^updates were lost although the run was fenced/,
    );
  });

  it('gives a plugin a line true of any lock', () => {
    const step = nextStep(LOST, PLUGIN, UNFENCED);
    expect(step.text).toMatch(/^fence the write: no lock alone stops a holder that lost its lock without knowing/);
    expect(step.text).toContain('if your lock hands out a token, check it where you write');
    expect(step.doc).toBe('docs/your-lock.md');
  });

  it("calls the no-lock baseline a baseline, without another lock's advice", () => {
    const none: LockFinding = { lock: 'none', doc: 'locks.md', token: 'no-lock', advice: 'never shown' };
    const { text } = nextStep(LOST, none, UNFENCED);
    expect(text).toMatch(/^--lock=none takes no lock: these 10 lost updates are the baseline/);
    expect(text).not.toContain('never shown');
  });

  it('says what a VALID run shows and does not', () => {
    const valid: NextStepResults = { ...LOST, valid: true, lostUpdates: 0, lostUpdatesByFault: {}, checkers: {} };
    expect(nextStep(valid, REDLOCK, { fencing: false, faults: ['pause-node'] }).text).toBe(
      'nothing was lost under pause-node in this run: one run is a sample, not a proof — rerun with other seeds (`--seed`), longer (`--time-limit`), or other faults; docs/matrix.md shows every lock under each fault.',
    );
    expect(nextStep(valid, REDLOCK, { fencing: false, faults: [] }).text).toMatch(
      /^nothing was lost without faults: that shows the lock keeps clients apart, nothing about a paused holder/,
    );
    expect(nextStep({ ...valid, staleWritesRejected: 1 }, REDLOCK, { fencing: true, faults: ['clock'] }).text).toMatch(
      /^nothing was lost under clock in this run; the fence refused 1 stale write:/,
    );
    const fenced = { ...valid, staleWritesRejected: 7 };
    expect(nextStep(fenced, REDLOCK, { fencing: true, faults: ['pause-holder'] }).text).toMatch(
      /^nothing was lost under pause-holder in this run; the fence refused 7 stale writes:/,
    );
  });

  it('says what to change to get a verdict from an UNKNOWN, by its first reason', () => {
    const unknown = (why?: string): string =>
      nextStep({ ...LOST, valid: 'unknown', lostUpdates: 0, unknownReasons: why ? [why] : [] }, REDLOCK, UNFENCED).text;
    expect(unknown('no progress: 0 writes committed; 14 acquires timed out')).toMatch(
      /^UNKNOWN is not a pass: the clients committed too few writes — check the servers/,
    );
    expect(unknown('no concurrency: only client 2 committed writes (40)')).toContain('`--concurrency`');
    expect(unknown('clock never fired: the history has no injection of it')).toContain('`--nemesis-interval`');
    expect(unknown('pause-holder fired 3 times but its story never completed')).toContain('`--think`');
    expect(unknown('clock never fired: the run left it out (no shim); drop it from --nemesis')).toMatch(
      /a fault could not run here — drop it from `--nemesis`/,
    );
    expect(unknown('clients kept dying: 9 client process exits')).toContain('logs/client-<n>.log');
    expect(unknown()).toMatch(/a checker ran out of time or memory/);
  });
});
