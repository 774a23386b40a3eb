import { describe, expect, it } from 'vitest';
import { cellArgv, cellConfig } from './cell-config.ts';
import { builtinStrategies, matrixPlan } from './matrix.ts';
import { shapeOf } from './cell-decision.ts';
import { checkStrategyOptions } from '../harness/strategy-options.ts';
import { HarnessError } from '../common/errors.ts';
import { resolveConfig, type Config } from '../harness/run-argv.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';

const USER = [
  '--lock=all',
  '--time-limit=12',
  '--concurrency=3',
  '--ttl=800',
  '--think=40',
  '--accounts=2',
  '--watchdog',
  '--pause=1500',
  '--restart-delay=900',
  '--redis-persistence=aof-always',
  '--clock-offset=30',
  '--backend',
  'docker',
  '--nemesis-interval=2000',
  '--seed=77',
  '--runs=2',
  '--results=/tmp/fp-cells',
];
const matrix = resolveConfig(USER);
/** The built-ins as the matrix resolves them: what each can do decides its cells' options. */
const S: Record<string, ResolvedStrategy> = Object.fromEntries(
  await Promise.all(['redis', 'redlock', 'etcd', 'zookeeper'].map(async (l) => [l, await loadStrategy(l)])),
);

/** The fields a cell sets itself; every other field of the matrix's Config must reach the cell unchanged. */
const CELL_FIELDS = new Set<keyof Config>([
  'lock',
  'nemesis',
  'fencing',
  'seed',
  'argv',
  'runs',
  'nemesisIntervalMs',
  'watchdog',
  // The typed options and their spellings: a cell's own (parse(render(config)) == config is checked below).
  'options',
  'spelled',
]);

describe("a cell's Config", () => {
  it('passes every run option of the matrix through, and sets lock, faults, fencing and seed', () => {
    const c = cellConfig(matrix, { strategy: S.redlock, faults: ['pause-holder'], fencing: false, seed: 78 });
    for (const key of Object.keys(matrix) as (keyof Config)[]) {
      if (!CELL_FIELDS.has(key)) expect(c[key], key).toEqual(matrix[key]);
    }
    expect(c).toMatchObject({
      lock: 'redlock',
      nemesis: ['pause-holder'],
      fencing: false,
      seed: 78,
      watchdog: true,
      nemesisIntervalMs: 2000,
      backend: 'docker',
      pauseMs: 1500,
      runs: 1,
    });
    expect(matrix).toMatchObject({
      timeLimitS: 12,
      concurrency: 3,
      ttlMs: 800,
      thinkMs: 40,
      accounts: 2,
      restartDelayMs: 900,
      redisPersistence: 'aof-always',
      clockOffsetS: 30,
    });
  });

  it('keeps --watchdog only for the locks it applies to (the CLI refuses it for the others)', () => {
    expect(cellConfig(matrix, { strategy: S.etcd, faults: [], fencing: true, seed: 1 })).toMatchObject({
      watchdog: false,
      fencing: true,
      nemesis: [],
    });
    expect(cellConfig(matrix, { strategy: S.redis, faults: [], fencing: false, seed: 1 }).watchdog).toBe(true);
  });

  it('caps --nemesis-interval where the column needs it, and overrides concurrency and time for the latency runs', () => {
    expect(
      cellConfig(matrix, { strategy: S.redis, faults: ['restart-empty'], fencing: false, seed: 1, maxIntervalMs: 500 })
        .nemesisIntervalMs,
    ).toBe(500);
    expect(
      cellConfig(matrix, { strategy: S.redis, faults: [], fencing: false, seed: 1, concurrency: 1, timeLimitS: 5 }),
    ).toMatchObject({ concurrency: 1, timeLimitS: 5, ttlMs: 800 });
  });

  it('turns --stop-on-lost-update off for a cell that measures liveness (its stall may come after the lost update)', () => {
    const stopping = resolveConfig([...USER, '--stop-on-lost-update']);
    const shape = { strategy: S.redis, faults: ['restart-empty'] as const, fencing: false, seed: 1 };
    expect(cellConfig(stopping, { ...shape, faults: [...shape.faults] }).stopOnLostUpdate).toBe(true);
    expect(cellConfig(stopping, { ...shape, faults: [...shape.faults], fullRuns: true }).stopOnLostUpdate).toBe(false);
    // Without the option there is nothing to turn off, and the argv says nothing of it.
    expect(cellArgv(matrix, { ...shape, faults: [...shape.faults], fullRuns: true }).join(' ')).not.toContain(
      'stop-on',
    );
  });

  it('derives the default --pause from the TTL as a single run would, when the user gave none', () => {
    const m = resolveConfig(['--lock=all', '--ttl=1000', '--seed=1']);
    expect(cellConfig(m, { strategy: S.etcd, faults: ['pause-holder'], fencing: false, seed: 2 }).pauseMs).toBe(1500);
  });

  it('goes through the CLI validation: --fencing with a lock that has no token is refused (exit 254)', () => {
    let err: unknown;
    try {
      cellConfig(matrix, { strategy: S.redis, faults: ['pause-holder'], fencing: true, seed: 1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HarnessError);
    expect(err).toMatchObject({ exitCode: 254, message: expect.stringContaining('--fencing with --lock=redis') });
  });

  it('writes an argv that replays the cell by itself', () => {
    expect(cellArgv(matrix, { strategy: S.zookeeper, faults: ['pause-holder'], fencing: true, seed: 9 })).toEqual([
      '--time-limit=12',
      '--concurrency=3',
      '--ttl=800',
      '--think=40',
      '--accounts=2',
      '--pause=1500',
      '--restart-delay=900',
      '--redis-persistence=aof-always',
      '--clock-offset=30',
      '--backend',
      'docker',
      '--nemesis-interval=2000',
      '--results=/tmp/fp-cells',
      '--lock=zookeeper',
      '--nemesis=pause-holder',
      '--fencing',
      '--seed=9',
    ]);
  });
});

describe("a remedy scenario's cell", () => {
  it("applies the scenario's options over the user's, drops the options it owns, and computes its floors from the scenario's TTL", () => {
    const long = cellConfig(matrix, {
      strategy: S.redis,
      faults: [],
      fencing: false,
      seed: 1,
      overrides: { thinkMs: 2500, ttlMs: 1000 },
      owns: ['watchdog', 'think', 'ttl'],
      minTimeLimitS: 30,
    });
    expect(long).toMatchObject({
      thinkMs: 2500,
      ttlMs: 1000,
      watchdog: false,
      timeLimitS: 30,
      pauseMs: 1500,
      concurrency: 3,
    });
    const delayed = cellConfig(matrix, {
      strategy: S.redlock,
      faults: ['restart-empty'],
      fencing: false,
      seed: 1,
      overrides: { ttlMs: 1000 },
      owns: ['restart-delay', 'redis-persistence'],
      minRestartDelayTtlFraction: 1,
      minThinkTtlFraction: 0.4,
      maxIntervalMs: 500,
    });
    expect(delayed).toMatchObject({
      restartDelayMs: 1000,
      redisPersistence: 'none',
      redisServer: 'redis',
      thinkMs: 400,
      nemesisIntervalMs: 500,
      watchdog: true,
    });
  });

  it("keeps a scenario's --watchdog even for a lock that refuses it, so the CLI can confirm the refusal", () => {
    expect(() =>
      cellConfig(matrix, {
        strategy: S.etcd,
        faults: [],
        fencing: false,
        seed: 1,
        overrides: { watchdog: true },
        owns: ['watchdog'],
      }),
    ).toThrow(/--watchdog/);
  });

  it('keeps a time limit above the floor, and writes an argv that replays the scenario by itself', () => {
    const m = resolveConfig(['--lock=all', '--time-limit=45', '--seed=3']);
    expect(
      cellArgv(m, {
        strategy: S.redis,
        faults: [],
        fencing: false,
        seed: 4,
        overrides: { thinkMs: 2500, ttlMs: 1000, watchdog: true },
        owns: ['watchdog', 'think', 'ttl'],
        minTimeLimitS: 30,
      }),
    ).toEqual([
      '--time-limit=45',
      '--think=2500',
      '--ttl=1000',
      '--watchdog',
      '--lock=redis',
      '--nemesis=none',
      '--seed=4',
    ]);
  });
});

describe("a cell's options", () => {
  it("drops the matrix's own however the user spelled them, with their values", () => {
    const m = resolveConfig(['--lock', 'all', '--seed', '5', '--ttl=300', '--seed=6', '--watchdog']);
    expect(cellArgv(m, { strategy: S.redlock, faults: [], fencing: false, seed: 1 })).toEqual([
      '--ttl=300',
      '--watchdog',
      '--lock=redlock',
      '--nemesis=none',
      '--seed=1',
    ]);
  });
});

/** Every cell of both tables, its first run's and its reruns' shapes: the Config built and the argv parsed agree. */
describe('parse(render(config)) == config', () => {
  const cases: [string, readonly string[]][] = [
    ['the default matrix', ['--lock=all', '--seed=3']],
    ['the options above', USER],
    ['a space form and --stop-on-lost-update', ['--lock=all', '--think', '900', '--stop-on-lost-update', '--seed=8']],
  ];
  for (const [name, argv] of cases) {
    it(`holds for every cell of ${name}`, async () => {
      const m = resolveConfig(argv);
      const strategies = await builtinStrategies();
      let compared = 0;
      for (const { lock, col, oracle } of matrixPlan('all')) {
        const shape = { ...shapeOf(col, strategies[lock], m.seed), fullRuns: oracle.decided === 'measured' };
        let built: Readonly<Config>;
        try {
          built = cellConfig(m, shape);
        } catch (err) {
          // A refused cell is refused alike when its argv is parsed (or when its strategy is asked).
          if (!(err instanceof HarnessError)) throw err;
          expect(() => checkStrategyOptions(resolveConfig(cellArgv(m, shape)), strategies[lock])).toThrow(err.message);
          continue;
        }
        expect(resolveConfig(built.argv), `${lock} × ${col.title}`).toEqual(built);
        compared++;
      }
      expect(compared).toBeGreaterThan(100);
    });
  }
});
