import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scenarioFromJson, readScenarioFile, SCENARIO_VERSION } from './scenario-file.ts';
import { parseStep, serverNames } from './scenario-steps.ts';
import { serverProblems } from './script-order.ts';

const base = (steps: unknown, more: Record<string, unknown> = {}) => ({
  fencepost: 'scenario',
  version: SCENARIO_VERSION,
  name: 't',
  clients: ['A', 'B'],
  steps,
  ...more,
});

const problemsOf = (raw: unknown): string[] => {
  const r = scenarioFromJson(raw);
  return 'problems' in r ? r.problems : [];
};

describe('scenario steps: one line each', () => {
  it.each([
    ['A acquire', { kind: 'client', client: 'A', f: 'acquire', until: 'done' }],
    ['start A write', { kind: 'client', client: 'A', f: 'write', until: 'started' }],
    ['wait A write', { kind: 'await-client', client: 'A', f: 'write' }],
    ['try B acquire', { kind: 'try-acquire', client: 'B' }],
    ['wait lease-expired A', { kind: 'lease-expired', client: 'A' }],
    ['pause A', { kind: 'strike', fault: 'pause-holder', client: 'A', servers: null, offsetS: null, until: 'done' }],
    ['resume A', { kind: 'heal', fault: 'pause-holder', client: 'A' }],
    ['hold A', { kind: 'strike', fault: 'delay-write', client: 'A', until: 'done' }],
    ['deliver A', { kind: 'heal', fault: 'delay-write', client: 'A' }],
    ['kill A', { kind: 'strike', fault: 'kill-holder', client: 'A' }],
    // The server fault `kill` shares its name with kill-holder's verb: alone, it is the server kill.
    ['kill', { kind: 'fault', fault: 'kill', until: 'done' }],
    ['start kill', { kind: 'fault', fault: 'kill', until: 'started' }],
    ['heal kill', { kind: 'heal', fault: 'kill', client: null }],
    ['heal kill A', { kind: 'heal', fault: 'kill-holder', client: 'A' }],
    [
      'restart-empty A on redis[0..2]',
      { kind: 'strike', fault: 'restart-empty', client: 'A', servers: ['redis[0]', 'redis[1]', 'redis[2]'] },
    ],
    ['clock +60s A on redis[1]', { kind: 'strike', fault: 'clock', client: 'A', servers: ['redis[1]'], offsetS: 60 }],
    ['clock reset', { kind: 'heal', fault: 'clock', client: null }],
    ['start failover A', { kind: 'strike', fault: 'failover', client: 'A', until: 'started' }],
    ['wait failover A', { kind: 'await-strike', fault: 'failover', client: 'A' }],
    ['heal failover', { kind: 'heal', fault: 'failover', client: null }],
    ['isolate-leader', { kind: 'fault', fault: 'isolate-leader', until: 'done' }],
    [
      'start hold-request A SET',
      { kind: 'strike', fault: 'hold-request', client: 'A', servers: null, request: 'SET', until: 'started' },
    ],
    ['wait hold-request A', { kind: 'await-strike', fault: 'hold-request', client: 'A' }],
    ['heal hold-request A', { kind: 'heal', fault: 'hold-request', client: 'A' }],
    ['  B   release ', { kind: 'client', client: 'B', f: 'release' }],
  ])('%s', (line, step) => {
    expect(parseStep(line)).toMatchObject(step);
  });

  it.each([
    ['A jump', /a client's step is one of A acquire, A read, A write, A release/],
    ['pauze A', /unknown step \(did you mean `pause`\?\)/],
    // As near to `hold` as to `kill`: the paired verb is named, as before the verbs moved into the faults' facts.
    ['hil A', /unknown step \(did you mean `hold`\?\)/],
    ['restart-empty A on', /servers are named after `on`/],
    [
      'kill-session A on redis[1]',
      /^kill-session chooses its servers itself; `on …` applies to restart-empty and clock$/,
    ],
    ['pause', /aimed at a holder inside its critical section: name it, `pause A`/],
    ['partition A', /partition picks its own target/],
    ['kill A on redis[0]', /kill-holder chooses its servers itself/],
    ['restart-empty A on mysql[0]', /servers are named after `on`/],
    ['clock 60s A', /clock \+60s A/],
    ['wait A', /`wait` is followed by/],
    ['start wait A write', /`start` goes before a client step or a fault/],
    ['try B read', /`try` goes before a client's acquire: try B acquire/],
    ['start try B acquire', /`start` goes before a client step or a fault/],
    ['heal nonsense', /`heal` names a fault of the catalogue/],
    ['hold-request A', /hold-request names its client and the request to hold by its command: hold-request A SET/],
    ['hold-request A SET on redis[0]', /hold-request A SET$/],
    ['hold-request A $ET', /hold-request A SET$/],
  ])('%s is refused with what to write', (line, why) => {
    const r = parseStep(line);
    expect(typeof r).toBe('string');
    expect(r).toMatch(why);
  });

  it('server lists: ranges, singles, lists, several kinds', () => {
    expect(serverNames('redis[0..2]')).toEqual(['redis[0]', 'redis[1]', 'redis[2]']);
    expect(serverNames('redis[0,2]')).toEqual(['redis[0]', 'redis[2]']);
    expect(serverNames('zk[1], etcd[0]')).toEqual(['zk[1]', 'etcd[0]']);
    expect(serverNames('redis[2..1]')).toBeNull();
    expect(serverNames('redis[0] nonsense')).toBeNull();
  });
});

describe('scenario files', () => {
  it('reads the shipped scenarios, each saying what it shows', () => {
    const dir = new URL('../scenarios/', import.meta.url);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const f of files) {
      const r = readScenarioFile(new URL(f, dir).pathname);
      expect(r, f).toHaveProperty('scenario');
      if ('scenario' in r) {
        expect(r.scenario.shows.length, f).toBeGreaterThan(80);
        expect(r.scenario.expect, f).not.toBeNull();
      }
    }
  });

  it('collects the faults the steps use, in catalogue order', () => {
    const r = scenarioFromJson(base(['A acquire', 'A read', 'clock +10s A', 'pause A', 'resume A', 'clock reset']));
    expect('scenario' in r && r.scenario.faults).toEqual(['pause-holder', 'clock']);
  });

  it('refuses what is not a scenario, naming the field', () => {
    expect(problemsOf([])).toEqual([expect.stringMatching(/a scenario is a JSON object/)]);
    expect(problemsOf({ ...base(['A acquire']), fencepost: 'bundle' })).toEqual([
      expect.stringMatching(/`fencepost` must be "scenario"/),
    ]);
    expect(problemsOf(base(['A acquire'], { version: 9 }))).toEqual([
      expect.stringMatching(
        /`version` 9: this fencepost reads scenario version 1 \(the file is from a newer fencepost\)/,
      ),
    ]);
    expect(problemsOf(base(['A acquire'], { clients: ['a'] }))).toEqual([
      expect.stringMatching(/client "a": a name is a capital letter/),
    ]);
    expect(problemsOf(base(['A acquire'], { extra: 1 }))).toEqual([
      expect.stringMatching(/`extra`: not a scenario field/),
    ]);
    expect(problemsOf(base(['A acquire'], { options: { concurrency: 3 } }))).toEqual([
      expect.stringMatching(/option `concurrency`: a scenario sets only ttl, think/),
    ]);
    expect(
      problemsOf(base(['A acquire'], { expect: { checker: 'lost-updates', anomaly: 'overlap', story: null } })),
    ).toEqual([expect.stringMatching(/`expect`: signature anomaly "overlap": lost-updates finds lost-update/)]);
    expect(problemsOf(base([]))).toEqual([expect.stringMatching(/`steps` must be a non-empty array/)]);
  });

  it('names an unknown step by its number and line', () => {
    expect(problemsOf(base(['A acquire', 'A frobnicate']))).toEqual([
      'step 2 "A frobnicate": a client\'s step is one of A acquire, A read, A write, A release',
    ]);
  });

  it('refuses a client the scenario does not have', () => {
    expect(problemsOf(base(['A acquire', 'C acquire']))).toEqual([
      'step 2 "C acquire": C is not one of the scenario\'s clients (A, B)',
    ]);
  });

  it('refuses steps in an order no client can take', () => {
    expect(problemsOf(base(['A read']))).toEqual(['step 1 "A read": A holds no lock: it acquires first']);
    expect(problemsOf(base(['A acquire', 'A write']))).toEqual([
      'step 2 "A write": A has not read since its acquire: a write is based on a read',
    ]);
    expect(problemsOf(base(['A acquire', 'A acquire']))).toEqual([
      'step 2 "A acquire": A already holds the lock: it releases first',
    ]);
    expect(problemsOf(base(['A acquire', 'pause A']))).toEqual([
      expect.stringMatching(/^step 2 "pause A": pause-holder strikes a holder inside its critical section/),
    ]);
    expect(problemsOf(base(['A acquire', 'A read', 'resume A']))).toEqual([
      'step 3 "resume A": pause-holder on A is not in effect: nothing to heal',
    ]);
    expect(problemsOf(base(['A acquire', 'A read', 'start A write', 'A release']))).toEqual([
      'step 4 "A release": A still has its write in flight: `wait A write` first',
    ]);
    expect(problemsOf(base(['start failover A', 'A acquire']))).toEqual([
      '`start failover A` is never waited for (wait failover A)',
    ]);
    expect(problemsOf(base(['wait lease-expired B']))).toEqual([
      'step 1 "wait lease-expired B": B has acquired nothing whose lease could run out',
    ]);
  });

  it('`try B acquire` needs another client holding the lock, and B free to acquire', () => {
    expect(problemsOf(base(['try B acquire']))).toEqual([
      'step 1 "try B acquire": no other client holds the lock for B to be kept out of: `try` is for a lock that is taken',
    ]);
    expect(problemsOf(base(['A acquire', 'A release', 'try B acquire']))).toEqual([
      'step 3 "try B acquire": no other client holds the lock for B to be kept out of: `try` is for a lock that is taken',
    ]);
    expect(problemsOf(base(['A acquire', 'B acquire', 'try B acquire']))).toEqual([
      'step 3 "try B acquire": B already holds the lock: it releases first',
    ]);
    // After it, B's section is written as if granted: a lock that keeps B out has those steps skipped (held).
    expect(
      problemsOf(
        base(['A acquire', 'A read', 'try B acquire', 'B read', 'A write', 'B write', 'A release', 'B release']),
      ),
    ).toEqual([]);
  });

  it('`try A acquire` ends the acquire A has in flight (`start A acquire`, its SET held) instead of sending one', () => {
    const steps = ['start hold-request A SET', 'start A acquire', 'wait hold-request A', 'B acquire', 'B read'];
    const rest = ['heal hold-request A', 'try A acquire', 'A read', 'B write', 'A write', 'B release', 'A release'];
    expect(problemsOf(base([...steps, ...rest]))).toEqual([]);
    // Without another holder there is nothing to be kept out of, in flight or not.
    expect(problemsOf(base(['start A acquire', 'try A acquire']))).toEqual([
      'step 2 "try A acquire": no other client holds the lock for A to be kept out of: `try` is for a lock that is taken',
    ]);
    // Another step in flight is still waited for first.
    expect(problemsOf(base(['B acquire', 'A acquire', 'A read', 'start A write', 'try A acquire']))).toEqual([
      'step 5 "try A acquire": A still has its write in flight: `wait A write` first',
    ]);
  });

  it('accepts a struck next section with `start`, and a delayed write with start/wait', () => {
    expect(problemsOf(base(['start pause A', 'A acquire', 'A read', 'wait pause A', 'resume A']))).toEqual([]);
    expect(
      problemsOf(base(['A acquire', 'A read', 'hold A', 'start A write', 'B acquire', 'deliver A', 'wait A write'])),
    ).toEqual([]);
  });

  it('names the servers a lock does not have', () => {
    const r = scenarioFromJson(base(['A acquire', 'A read', 'restart-empty A on redis[3..4]', 'clock +5s A on zk[0]']));
    if (!('scenario' in r)) throw new Error(r.problems.join('; '));
    expect(serverProblems(r.scenario.steps, { redis: 3, etcd: 0, zk: 0 }, 'redlock')).toEqual([
      'step 3 "restart-empty A on redis[3..4]": --lock=redlock has no redis[3] (its redis servers are redis[0..2])',
      'step 3 "restart-empty A on redis[3..4]": --lock=redlock has no redis[4] (its redis servers are redis[0..2])',
      'step 4 "clock +5s A on zk[0]": --lock=redlock has no zk[0] (it runs no zk)',
    ]);
  });

  it('a file that cannot be read or is not JSON says so', () => {
    expect(readScenarioFile('/nonexistent/x.json')).toEqual({ problems: ['cannot read it: ENOENT'] });
  });
});
