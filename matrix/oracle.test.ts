import { describe, expect, it } from 'vitest';
import { faultFacts } from '../faults/catalogue.ts';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { ORACLE, ORACLE_COLUMNS } from './oracle.ts';

/** The seven strategies these tests pin; a new built-in brings its own row and is checked by the tests below. */
const PINNED = ['none', 'redis', 'redlock', 'redlock-npm', 'etcd', 'zookeeper', 'postgres'] as const;
const cellsOf = (decided: 'measured' | 'construction') =>
  PINNED.flatMap((lock) =>
    ORACLE_COLUMNS.filter((c) => ORACLE[lock][c.id].decided === decided).map((c) => `${lock} × ${c.id}`),
  );

describe('the oracle columns', () => {
  it('fire restart-empty often enough for a short run, and leave the other columns to --nemesis-interval', () => {
    expect(ORACLE_COLUMNS.find((c) => c.id === 'restart-empty')?.maxIntervalMs).toBe(500);
    expect(ORACLE_COLUMNS.filter((c) => c.maxIntervalMs !== undefined).map((c) => c.id)).toEqual([
      'restart-empty',
      'restart-fenced',
    ]);
  });

  it("stand where the faults' facts place them: no fault first, each place taken once, in the order they joined", () => {
    expect(ORACLE_COLUMNS.map((c) => `${c.id}:${c.faults.join(',')}`)).toEqual([
      'no-fault:',
      'pause-holder:pause-holder',
      'restart-empty:restart-empty',
      'clock:clock',
      'fencing:pause-holder',
      'restart-fenced:restart-empty',
      'pause-master:pause-node',
      'kill-session:kill-session',
    ]);
    const places = FAULT_NAMES.flatMap((f) => (faultFacts(f)?.columns ?? []).map((c) => c.place));
    expect([...places].sort((a, b) => a - b)).toEqual(places.map((_, i) => i + 1));
  });

  it("the remedy table's scenarios too: long work at 2 and 3, the faults' scenarios each in a place of its own", async () => {
    const { REMEDY_SCENARIOS } = await import('./remedy-oracle.ts');
    expect(REMEDY_SCENARIOS.map((s) => `${s.id}:${s.faults.join(',')}`)).toEqual([
      'failover:failover',
      'long-work:',
      'long-work-watchdog:',
      'pause-watchdog:pause-holder',
      'restart-delay:restart-empty',
      'restart-retry:restart-empty',
      'restart-aof:restart-empty',
      'delay-write:delay-write',
      'delay-write-fenced:delay-write',
      'failover-fenced:failover',
    ]);
    const places = [2, 3, ...FAULT_NAMES.flatMap((f) => (faultFacts(f)?.scenarios ?? []).map((s) => s.place))];
    expect([...places].sort((a, b) => a - b)).toEqual(places.map((_, i) => i + 1));
  });
});

describe('which cells are measured and which are decided by construction', () => {
  it('runs only cells where a fault can reach a lock: 24 measured', () => {
    expect(cellsOf('measured')).toEqual([
      'none × no-fault',
      'redis × no-fault',
      'redis × pause-holder',
      'redis × restart-empty',
      'redis × clock',
      'redlock × no-fault',
      'redlock × pause-holder',
      'redlock × restart-empty',
      'redlock × clock',
      'redlock × pause-master',
      'redlock-npm × no-fault',
      'redlock-npm × pause-holder',
      'redlock-npm × restart-empty',
      'redlock-npm × clock',
      'redlock-npm × pause-master',
      'etcd × no-fault',
      'etcd × pause-holder',
      'etcd × fencing',
      'zookeeper × no-fault',
      'zookeeper × pause-holder',
      'zookeeper × fencing',
      'postgres × no-fault',
      'postgres × pause-holder',
      'postgres × clock',
    ]);
  });

  it('decides the rest by construction, each with its reason: no lock, no Redis, no token, its own fence', () => {
    // 5 columns of 7 rows less the measured ones, then the three new columns: restart-fenced (none n/a, the Redis
    // rows refused, the others without Redis n/a), pause-master (measured for the two Redlocks only), kill-session.
    expect(cellsOf('construction')).toHaveLength(7 * ORACLE_COLUMNS.length - 24);
    for (const lock of BUILTIN_LOCKS) {
      for (const col of ORACLE_COLUMNS) {
        const o = ORACLE[lock][col.id];
        if (o.decided === 'construction') expect(o.reason.length, `${lock} × ${col.id}`).toBeGreaterThan(20);
      }
    }
    const o = (lock: keyof typeof ORACLE, col: (typeof ORACLE_COLUMNS)[number]['id']) => ORACLE[lock][col];
    // The cells that used to show "lost ✓" or a repeat of another cell without injecting anything:
    expect(o('none', 'restart-empty')).toMatchObject({ decided: 'construction', expect: 'lost' });
    expect(o('postgres', 'restart-empty')).toMatchObject({
      decided: 'construction',
      reason: expect.stringContaining('runs no Redis'),
    });
    expect(o('postgres', 'fencing')).toMatchObject({
      decided: 'construction',
      reason: expect.stringContaining('its own fence'),
    });
    expect(['redis', 'redlock', 'redlock-npm'].map((l) => o(l as 'redis', 'fencing').expect)).toEqual([
      'refuse',
      'refuse',
      'refuse',
    ]);
  });
});

describe('liveness expectations', () => {
  it("expect redlock-npm's package loop (and its fork's) to livelock under restart-empty, the all-masters waiters to stall under a paused master, and only there", async () => {
    const { REMEDY_ORACLE, REMEDY_SCENARIOS } = await import('./remedy-oracle.ts');
    const withLiveness = [
      ...BUILTIN_LOCKS.flatMap((lock) => ORACLE_COLUMNS.map((c) => [`${lock} × ${c.id}`, ORACLE[lock][c.id]] as const)),
      ...BUILTIN_LOCKS.flatMap((lock) =>
        REMEDY_SCENARIOS.map((s) => [`${lock} × ${s.id}`, REMEDY_ORACLE[lock][s.id]] as const),
      ),
    ].filter(([, o]) => o.decided === 'measured' && o.liveness);
    expect(withLiveness.map(([k, o]) => [k, o.decided === 'measured' ? o.liveness?.expect : ''])).toEqual([
      ['redlock × pause-master', 'recovers'],
      ['redlock-npm × restart-empty', 'may-livelock'],
      ['redlock-npm × pause-master', 'may-livelock'],
      // The npm libraries' rows (locks/<row>/row.ts): which retry loops free their partial locks, and which
      // wait for every master's reply.
      ['redlock-v4 × restart-empty', 'recovers'],
      ['redlock-v4 × pause-master', 'stalls'],
      ['redlock-sesame × restart-empty', 'may-livelock'],
      ['redlock-sesame × pause-master', 'may-livelock'],
      ['redis-semaphore-redlock × restart-empty', 'recovers'],
      ['redis-semaphore-redlock × pause-master', 'stalls'],
      ['redlock-npm × restart-retry', 'recovers'],
    ]);
    for (const [, o] of withLiveness)
      if (o.decided === 'measured') expect(o.liveness!.reason.length).toBeGreaterThan(40);
    expect(ORACLE['redlock-npm']['restart-empty']).toMatchObject({ expect: 'lost' });
    expect(REMEDY_ORACLE['redlock-npm']['restart-retry']).toMatchObject({ expect: 'lost' });
  });
});

describe("the npm libraries' rows", () => {
  it('give a reason for every measured expectation, written before the first run', async () => {
    const { REMEDY_ORACLE, REMEDY_SCENARIOS } = await import('./remedy-oracle.ts');
    const { NPM_BUILTINS } = await import('../locks/registry.ts');
    const rows = [...Object.keys(NPM_BUILTINS), 'etcd3-lock'] as (keyof typeof ORACLE)[];
    for (const lock of rows) {
      const cells = [
        ...ORACLE_COLUMNS.map((c) => [c.id, ORACLE[lock][c.id]] as const),
        ...REMEDY_SCENARIOS.map((s) => [s.id, REMEDY_ORACLE[lock][s.id]] as const),
      ];
      for (const [id, o] of cells) {
        const why = o.decided === 'measured' ? o.why : o.reason;
        expect(why?.length ?? 0, `${lock} × ${id}`).toBeGreaterThan(30);
      }
    }
  });

  it('measure the fenced restart and failover for the one Redis row with a token, and refuse them for the others', async () => {
    const { REMEDY_ORACLE } = await import('./remedy-oracle.ts');
    const fencedRestart = BUILTIN_LOCKS.filter((l) => ORACLE[l]['restart-fenced'].decided === 'measured');
    const fencedFailover = BUILTIN_LOCKS.filter((l) => REMEDY_ORACLE[l]['failover-fenced'].decided === 'measured');
    expect(fencedRestart).toEqual(['simple-redis-mutex']);
    expect(fencedFailover).toEqual(['simple-redis-mutex']);
    expect(ORACLE['redis-semaphore']['restart-fenced'].expect).toBe('refuse');
    expect(BUILTIN_LOCKS.filter((l) => ORACLE[l]['kill-session'].decided === 'measured')).toEqual(['advisory-lock']);
  });
});
