import { describe, expect, it } from 'vitest';
import { findingsMarkdown, sourceText } from './findings-page.ts';
import { replayArgv } from './write-findings.ts';
import type { MatrixCell } from './matrix-cell.ts';
import { FINDINGS_ROWS } from './findings-advice.ts';
import { promiseSentence } from './findings-promise.ts';
import { ORACLE } from './oracle.ts';

const cell = (over: Partial<MatrixCell>): MatrixCell => ({
  lock: 'redlock-v4',
  fault: 'none',
  fencing: false,
  runDir: '/r/redlock-v4/1',
  expected: 'safe',
  observed: 'safe',
  matched: true,
  lostUpdates: 0,
  staleWritesRejected: 0,
  acquireP50: 1,
  acquireP99: 2,
  table: 'faults',
  columnId: 'no-fault',
  decided: 'measured',
  runs: [],
  ...over,
});

describe('docs/findings.md, from the oracle and the runs', () => {
  it("has a section per library with every measured cell: the expectation and its reason, what was measured, the run's replay line", () => {
    const cells = new Map([
      ['redlock-v4|faults:no-fault', cell({})],
      [
        'redlock-v4|faults:pause-holder',
        cell({
          fault: 'pause-holder',
          columnId: 'pause-holder',
          expected: 'lost',
          observed: 'lost',
          lostUpdates: 2,
          runDir: '/r/2',
        }),
      ],
    ]);
    const refs = new Map([['/r/2', { replay: 'npm run jepsen -- --lock=redlock-v4 --nemesis=pause-holder --seed=7' }]]);
    const md = findingsMarkdown(cells, refs, ['results/matrix/x']);
    for (const f of FINDINGS_ROWS) expect(md).toContain(`## \`${f.lock}\``);
    const section = md.slice(md.indexOf('## `redlock-v4`'), md.indexOf('## `redlock-sesame`'));
    const paused = section.split('\n').find((l) => l.startsWith('| holder paused > TTL |'))!;
    expect(paused).toContain('**lost**: a holder paused past its TTL');
    expect(paused).toContain('✓ lost (2 lost updates)');
    expect(paused).toContain('`npm run jepsen -- --lock=redlock-v4 --nemesis=pause-holder --seed=7`');
    expect(section).toContain('| clock jump on Redis | **lost**');
    expect(section).toContain('not measured yet');
    expect(section).toContain('**What to do:**');
  });

  it('a contradicted cell is marked ✗ and explained under the table, with the words of findings-advice.ts or a warning', () => {
    const cells = new Map([
      [
        'advisory-lock|faults:kill-session',
        cell({
          lock: 'advisory-lock',
          fault: 'kill-session',
          columnId: 'kill-session',
          observed: 'lost',
          lostUpdates: 1,
          matched: false,
        }),
      ],
    ]);
    const md = findingsMarkdown(cells, new Map(), []);
    const section = md.slice(md.indexOf('## `advisory-lock`'), md.indexOf('## Earlier findings'));
    expect(section).toContain('✗ lost (1 lost update)');
    expect(section).toContain('**Where the measurement differs from the prediction**');
    expect(section).toMatch(/- \*holder's lock session killed\* \(✗ in the runs above\): /);
    expect(ORACLE['advisory-lock']['kill-session'].expect).toBe('safe');
  });

  it('keeps the earlier findings: the beta livelock, python-etcd3 on a contended acquire, ZooKeeper under leader churn', () => {
    const md = findingsMarkdown(new Map(), new Map(), []);
    expect(md).toContain('redlock@5.0.0-beta.2 livelocks');
    expect(md).toContain('python-etcd3 0.12 crashes on a contended acquire');
    expect(md).toContain('ZooKeeper locks are unavailable for 3–4 TTLs');
  });

  it("lists every row's lost-reply cell, prediction and replay, and the gallery's double-counting case", () => {
    const md = findingsMarkdown(new Map(), new Map(), []);
    const section = md.slice(md.indexOf('## A reply lost after the server acted'), md.indexOf('## Earlier findings'));
    const rows = section.split('\n').filter((l) => /^\| (`|gallery)/.test(l));
    expect(rows.map((l) => l.split(' | ')[0])).toEqual([
      '| `redis`',
      '| `zookeeper`',
      '| `curator`',
      '| gallery `reentrant-resend.ts`',
    ]);
    expect(rows[0]).toContain('orphaned-lock: ');
    expect(rows[1]).toContain('clean: ');
    expect(rows.every((l) => !l.includes('not measured yet'))).toBe(true);
  });

  it('says "not measured yet" in the promise column and sentence for a matrix stored before the promise checker', () => {
    const cells = new Map([['redlock-v4|faults:no-fault', cell({})]]);
    const md = findingsMarkdown(cells, new Map(), []);
    expect(md).toContain('| measured cells | broke its promise |');
    expect(md).toMatch(/\| `redlock-v4` \|.*\| no fault: safe \| not measured yet \|/);
    const section = md.slice(md.indexOf('## `redlock-v4`'), md.indexOf('## `redlock-sesame`'));
    expect(section).toContain('| measured | broke its promise | the run that shows it |');
    expect(section).toMatch(/\| ✓ safe \| not measured yet \| run `redlock-v4\/1` \|/);
    expect(section).toContain(
      '**Its own broken promises:** not measured yet (the stored runs predate the promise checker).',
    );
  });

  it("names which of a library's failures were its own broken promises, from the cells' counts", () => {
    const known = (broken: number) => ({ broken, outlived: broken ? 0 : 2, unknown: 0, known: true, runs: 1 });
    const cells = new Map([
      [
        'redlock-npm|faults:pause-holder',
        cell({ lock: 'redlock-npm', columnId: 'pause-holder', observed: 'lost', lostUpdates: 2, promise: known(0) }),
      ],
      [
        'redlock-npm|faults:clock',
        cell({ lock: 'redlock-npm', columnId: 'clock', observed: 'lost', lostUpdates: 1, promise: known(3) }),
      ],
    ]);
    const md = findingsMarkdown(cells, new Map(), []);
    const section = md.slice(md.indexOf('## `redlock-npm`'), md.indexOf('## `redlock-v4`'));
    expect(section).toContain(
      '**Its own broken promises:** of its failures, its own broken promises under clock jump on Redis; a holder that outlived its lease (no promise broken) under holder paused > TTL.',
    );
    expect(section).toMatch(/\| ✓ lost \(1 lost update\) \| 3 broken \|/);
    expect(md).toMatch(/\| `redlock-npm` \|.*\| 3 broken \|\n/);
  });
});

describe('promiseSentence', () => {
  const c = (over: Partial<MatrixCell>) => cell(over);
  it('tells a promise broken without a lost update apart, and a lock whose lease is unknown', () => {
    expect(
      promiseSentence([
        { title: 'no fault', cell: c({ promise: { broken: 1, outlived: 0, unknown: 0, known: true, runs: 1 } }) },
      ]),
    ).toBe(
      '**Its own broken promises:** no failures, yet it broke its promise under no fault (no update was lost: luck or a fence).',
    );
    expect(
      promiseSentence([
        {
          title: 'session killed',
          cell: c({
            observed: 'lost',
            promise: {
              broken: 0,
              outlived: 0,
              unknown: 0,
              known: false,
              why: 'its lease is kept outside the history',
              runs: 1,
            },
          }),
        },
        { title: 'clock jump', cell: c({ observed: 'lost' }) },
      ]),
    ).toBe(
      '**Its own broken promises:** of its failures, none of them its own broken promise; whose fault is unknown under session killed (its lease is kept outside the history); not measured yet under clock jump.',
    );
    expect(
      promiseSentence([
        { title: 'no fault', cell: c({ promise: { broken: 0, outlived: 0, unknown: 0, known: true, runs: 1 } }) },
      ]),
    ).toBe('**Its own broken promises:** none, and no failures to blame.');
  });

  it('puts a failure whose overlaps were all unknown under unknown, not under a holder that outlived its lease', () => {
    // redis-semaphore-redlock x restart-delay, 2026-12-06: 1 lost update, its one overlap unknown, none outlived.
    const unknownOnly = {
      broken: 0,
      outlived: 0,
      unknown: 1,
      known: true,
      why: 'the lease start is not in the history',
      runs: 1,
    };
    const outlived = { broken: 0, outlived: 2, unknown: 0, known: true, runs: 1 };
    expect(
      promiseSentence([
        { title: 'restart delay', cell: c({ observed: 'lost', promise: unknownOnly }) },
        { title: 'holder paused', cell: c({ observed: 'lost', promise: outlived }) },
      ]),
    ).toBe(
      '**Its own broken promises:** of its failures, none of them its own broken promise; a holder that outlived its lease (no promise broken) under holder paused; whose fault is unknown under restart delay (the lease start is not in the history).',
    );
  });
});

// The defects the ux audit of 2026-12-05 found on the page (§5.1).
describe("docs/findings.md's lines, as a reader gets them", () => {
  const redlockNpm = (md: string) => md.slice(md.indexOf('## `redlock-npm`'), md.indexOf('## `redlock-v4`'));

  it('names a scratch folder by its name, not its machine path, and a repository folder by its path', () => {
    const md = findingsMarkdown(new Map(), new Map(), ['/tmp/r41all/matrix/2026-12-05T00-36-49.619Z']);
    expect(md).not.toContain('/tmp/');
    expect(md).toContain('Runs behind this page: `2026-12-05T00-36-49.619Z` (a scratch folder, not kept).');
    expect(sourceText('/repo/results/matrix/x', '/repo')).toBe('`results/matrix/x`');
    expect(sourceText('results/matrix/x', '/repo')).toBe('`results/matrix/x`');
  });

  it('writes no empty reason: an expectation without one stands alone', () => {
    const section = redlockNpm(findingsMarkdown(new Map(), new Map(), []));
    // It read "| no fault | **safe**:  | ✓ safe; no stall |".
    expect(section).not.toMatch(/\*\*: {2}|\*\*: \|/);
    expect(section).toMatch(/^\| no fault \| \*\*safe\*\* \| /m);
    expect(section).toMatch(/^\| Redis restart empty \| \*\*lost, may livelock\*\*: Liveness: the package's /m);
  });

  it('spells every expectation in words, never the enum', () => {
    const md = findingsMarkdown(new Map(), new Map(), []);
    expect(md).not.toMatch(/safe-may-starve|may-lose/);
    expect(redlockNpm(md)).toMatch(/^\| long work > TTL, --watchdog \| \*\*safe, may starve\*\*/m);
  });

  it("a cell's run without a replay line is named by its lock and timestamp, not its absolute folder", () => {
    const md = findingsMarkdown(
      new Map([['redlock-v4|faults:no-fault', cell({ runDir: '/tmp/r41all/redlock-v4/2026-12-05T00-40-00.000Z' })]]),
      new Map(),
      [],
    );
    expect(md).toContain('run `redlock-v4/2026-12-05T00-40-00.000Z`');
    expect(md).not.toContain('/tmp/');
  });

  // 22 replay lines read `--time-limit=10 --think=2500 --ttl=1000 --lock=redlock-npm --nemesis=none --time-limit=30`.
  it('gives each option of a replay line once, where the run last set it, and drops --results', () => {
    const argv = [
      '--time-limit=10',
      '--results=/tmp/r41all',
      '--think=2500',
      '--ttl=1000',
      '--lock=redlock-npm',
      '--nemesis=none',
      '--time-limit=30',
      '--watchdog',
    ];
    expect(replayArgv(argv)).toEqual([
      '--think=2500',
      '--ttl=1000',
      '--lock=redlock-npm',
      '--nemesis=none',
      '--time-limit=30',
      '--watchdog',
    ]);
  });

  it('drops a space-form --results with its folder, and gives a space-form option once too', () => {
    expect(replayArgv(['--results', '/tmp/r41all', '--time-limit', '10', '--ttl=900', '--time-limit=30'])).toEqual([
      '--ttl=900',
      '--time-limit=30',
    ]);
  });
});
