import { describe, expect, it } from 'vitest';
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
    expect(ORACLE_COLUMNS.filter((c) => c.maxIntervalMs !== undefined).map((c) => c.id)).toEqual(['restart-empty']);
  });
});

describe('which cells are measured and which are decided by construction', () => {
  it('runs only cells where a fault can reach a lock: 22 measured', () => {
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
      'redlock-npm × no-fault',
      'redlock-npm × pause-holder',
      'redlock-npm × restart-empty',
      'redlock-npm × clock',
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
    expect(cellsOf('construction')).toHaveLength(13);
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
  it("expect redlock-npm's package loop to livelock under restart-empty (beside its lost update), and only there", async () => {
    const { REMEDY_ORACLE, REMEDY_SCENARIOS } = await import('./remedy-oracle.ts');
    const withLiveness = [
      ...BUILTIN_LOCKS.flatMap((lock) => ORACLE_COLUMNS.map((c) => [`${lock} × ${c.id}`, ORACLE[lock][c.id]] as const)),
      ...BUILTIN_LOCKS.flatMap((lock) =>
        REMEDY_SCENARIOS.map((s) => [`${lock} × ${s.id}`, REMEDY_ORACLE[lock][s.id]] as const),
      ),
    ].filter(([, o]) => o.decided === 'measured' && o.liveness);
    expect(withLiveness.map(([k, o]) => [k, o.decided === 'measured' ? o.liveness?.expect : ''])).toEqual([
      ['redlock-npm × restart-empty', 'may-livelock'],
      ['redlock-npm × restart-retry', 'recovers'],
    ]);
    for (const [, o] of withLiveness)
      if (o.decided === 'measured') expect(o.liveness!.reason.length).toBeGreaterThan(40);
    expect(ORACLE['redlock-npm']['restart-empty']).toMatchObject({ expect: 'lost' });
    expect(REMEDY_ORACLE['redlock-npm']['restart-retry']).toMatchObject({ expect: 'lost' });
  });
});
