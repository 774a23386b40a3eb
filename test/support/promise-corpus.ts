import type { Op, OpType, ProcessId } from '../../history/op.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import type { PromiseTerms } from '../../checkers/promise/check-promise.ts';
import type { PromiseClass } from '../../checkers/promise/promise-overlaps.ts';

/**
 * The promise checker's labelled corpus (checkers/promise/): literal histories on a timeline in ms, each with the
 * class every overlap must get. `[a, b, class]` names the two processes in the order they acquired.
 */
export interface PromiseCase {
  name: string;
  terms: PromiseTerms | undefined;
  ops: Op[];
  expected: [number, number, PromiseClass][];
}

type Event = [ms: number, process: ProcessId, type: OpType, f: string, value: unknown, error?: string];

/** A history from events in any order: sorted by time (ties keep their order), indexed, ms → ns. */
function timeline(...events: (Event | Event[])[]): Op[] {
  const flat = events.flat(1) as Event[];
  return flat
    .map((e, i) => ({ e, i }))
    .sort((x, y) => x.e[0] - y.e[0] || x.i - y.i)
    .map(({ e: [ms, process, type, f, value, error] }, index) => ({
      index,
      time: ms * 1e6,
      process,
      type,
      f,
      value,
      ...(error !== undefined ? { error } : {}),
    }));
}

const ACCOUNT = 0;

function acquire(p: number, at: number, done: number, extra: { validityMs?: number; token?: string } = {}): Event[] {
  return [
    [at, p, 'invoke', 'acquire', { account: ACCOUNT }],
    [done, p, 'ok', 'acquire', { account: ACCOUNT, attempts: 1, ...extra }],
  ];
}

function acquireInfo(p: number, at: number, done: number): Event[] {
  return [
    [at, p, 'invoke', 'acquire', { account: ACCOUNT }],
    [done, p, 'info', 'acquire', { account: ACCOUNT }, 'timeout'],
  ];
}

let nextWriteId = 1;
/** A write sent at `at`, answered at `done`: committed (ok, with a ledger row id), or refused with `error`. */
function write(p: number, at: number, done: number, error?: string): Event[] {
  const v = { account: ACCOUNT, from: 100, to: 110, delta: 10, basedOn: 0 };
  return [
    [at, p, 'invoke', 'write', v],
    error ? [done, p, 'fail', 'write', v, error] : [done, p, 'ok', 'write', { ...v, writeId: nextWriteId++ }],
  ];
}

function release(p: number, at: number, done = at + 1, type: OpType = 'ok'): Event[] {
  return [
    [at, p, 'invoke', 'release', { account: ACCOUNT }],
    [done, p, type, 'release', { account: ACCOUNT, released: true }, type === 'ok' ? undefined : 'timeout'],
  ];
}

/** The watchdog's renewal for client p: ok, or failed with lock-lost. */
function renew(p: number, at: number, done: number, ok = true, token?: string): Event[] {
  const w = watchdogProcess(p);
  return [
    [at, w, 'invoke', 'renew', { account: ACCOUNT, ...(token !== undefined ? { token } : {}) }],
    ok ? [done, w, 'ok', 'renew', { account: ACCOUNT }] : [done, w, 'fail', 'renew', { account: ACCOUNT }, 'lock-lost'],
  ];
}

function fault(
  f: string,
  start: number,
  end: number,
  targets: string[],
  params: Record<string, unknown> = {},
): Event[] {
  return [
    [start, 'nemesis', 'info', f, { phase: 'start', targets, params }],
    [end, 'nemesis', 'info', f, { phase: 'end', targets }],
  ];
}

const client = (p: number) => [`client p${p} (pid ${4000 + p})`];
/** clock-strobe as the nemesis records it: servers and every client slot, +1 s high. */
const strobe = (start: number, end: number) =>
  fault('clock-strobe', start, end, ['redis[0]', 'client-0', 'client-1'], {
    offsetMs: 1000,
    offsets: { 'redis[0]': 1000, 'client-0': 1000, 'client-1': 1000 },
  });

const TTL = 2000;
const REDIS: PromiseTerms = { ttlMs: TTL, lease: { kind: 'ttl-from-request' } };
const REDLOCK: PromiseTerms = { ttlMs: TTL, lease: { kind: 'ttl-from-request', driftFactor: 0.01 } };
const ZOOKEEPER: PromiseTerms = { ttlMs: TTL, lease: { kind: 'reported-from-request' } };
const KEPT_ALIVE: PromiseTerms = {
  ttlMs: TTL,
  lease: { kind: 'unknown', why: 'its session lease is kept alive outside the history' },
};
const PLUGIN: PromiseTerms = { ttlMs: TTL, lease: null };

/** Kleppmann's pause on a lock of the given terms: p0 stopped past its lease, p1 takes over, p0 writes late. */
function kleppmann(terms: PromiseTerms | undefined, fenced: boolean, validityMs?: number): Op[] {
  return timeline(
    acquire(0, 0, 1, validityMs !== undefined ? { validityMs } : {}),
    fault('pause-holder', 5, 3005, client(0), { durationMs: 3000 }),
    acquire(1, 1500, 2100, validityMs !== undefined ? { validityMs } : {}),
    write(1, 2200, 2203),
    release(1, 2300),
    write(0, 3006, 3008, fenced ? 'stale-token' : undefined),
    release(0, 3009),
  );
}

export const PROMISE_CORPUS: PromiseCase[] = [
  {
    name: 'one holder after another: nothing overlaps',
    terms: REDIS,
    ops: timeline(acquire(0, 0, 1), write(0, 10, 11), release(0, 20), acquire(1, 30, 31), release(1, 40)),
    expected: [],
  },
  {
    name: 'a release and the next grant at the same instant do not overlap',
    terms: REDIS,
    ops: timeline(acquire(0, 0, 1), release(0, 500), acquire(1, 400, 500), release(1, 600)),
    expected: [],
  },
  {
    name: 'a broken lock grants inside a live lease',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      acquire(1, 500, 501),
      write(1, 510, 511),
      release(1, 520),
      write(0, 600, 601),
      release(0, 700),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: 'restart-empty: the key is forgotten and granted again inside the lease',
    terms: REDLOCK,
    ops: timeline(
      acquire(0, 0, 2, { validityMs: 1970 }),
      fault('restart-empty', 300, 400, ['redis[0]', 'redis[1]', 'redis[2]']),
      acquire(1, 420, 452, { validityMs: 1960 }),
      write(1, 500, 502),
      release(1, 510),
      write(0, 800, 802),
      release(0, 900),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: "a server's clock jumps forward and its key expires early",
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      fault('clock', 300, 700, ['redis[0]'], { offsetMs: 60000, offsets: { 'redis[0]': 60000 } }),
      acquire(1, 350, 351),
      release(1, 360),
      write(0, 400, 401),
      release(0, 410),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: 'failover: the promoted replica lacks the key',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      fault('failover', 200, 300, ['redis[0]']),
      acquire(1, 310, 311),
      release(1, 320),
      release(0, 400),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: 'a holder gone without a release promises nothing past its last op (its client may have freed the lock)',
    terms: ZOOKEEPER,
    ops: timeline(
      acquire(0, 0, 1, { validityMs: 4000 }),
      [
        [10, 0, 'invoke', 'read', { account: ACCOUNT }],
        [900, 0, 'info', 'read', { account: ACCOUNT }, 'timeout'],
      ],
      acquire(1, 950, 1000, { validityMs: 4000 }),
      release(1, 1100),
    ),
    expected: [],
  },
  { name: "Kleppmann's pause, unfenced", terms: REDIS, ops: kleppmann(REDIS, false), expected: [[0, 1, 'outlived']] },
  {
    name: "Kleppmann's pause, fenced (the stale write refused)",
    terms: REDIS,
    ops: kleppmann(REDIS, true),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "Kleppmann's pause on Redlock",
    terms: REDLOCK,
    ops: kleppmann(REDLOCK, false, 1970),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "Kleppmann's pause on ZooKeeper",
    terms: ZOOKEEPER,
    ops: kleppmann(ZOOKEEPER, false, 2000),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "Kleppmann's pause on a plugin reporting its validity",
    terms: PLUGIN,
    ops: kleppmann(PLUGIN, false, 1500),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "Kleppmann's pause on a lease declared unknown (kept alive outside the history)",
    terms: KEPT_ALIVE,
    ops: kleppmann(KEPT_ALIVE, true, 2000),
    expected: [[0, 1, 'unknown']],
  },
  {
    name: 'a plugin that reports no validity: unknown',
    terms: PLUGIN,
    ops: kleppmann(PLUGIN, false),
    expected: [[0, 1, 'unknown']],
  },
  {
    name: 'a run recorded before lease terms: unknown',
    terms: undefined,
    ops: kleppmann(undefined, false),
    expected: [[0, 1, 'unknown']],
  },
  {
    name: 'a TTL lease but no TTL recorded: unknown',
    terms: { ttlMs: null, lease: { kind: 'ttl-from-request' } },
    ops: kleppmann(REDIS, false),
    expected: [[0, 1, 'unknown']],
  },
  {
    // A session lease is refreshed by heartbeats the history does not show: past its window by the history, a holder
    // that nothing stopped may still have held a live session — had the server granted p1 then, the server broke its
    // promise. Late only when a pause or a network fault on the holder could have let the session lapse.
    name: 'ZooKeeper: a holder nothing stopped writes after its window while another holds: unknown, not outlived',
    terms: ZOOKEEPER,
    ops: timeline(
      acquire(0, 0, 1, { validityMs: 2000 }),
      acquire(1, 1500, 2100, { validityMs: 2000 }),
      write(1, 2200, 2203),
      write(0, 3006, 3008),
      release(1, 3100),
      release(0, 3200),
    ),
    expected: [[0, 1, 'unknown']],
  },
  {
    name: 'ZooKeeper without a reported session timeout: unknown',
    terms: ZOOKEEPER,
    ops: kleppmann(ZOOKEEPER, false),
    expected: [[0, 1, 'unknown']],
  },
  {
    name: 'a delayed write lands after the lease, while another holds',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      fault('delay-write', 90, 2500, client(0), { durationMs: 2400 }),
      write(0, 100, 2500),
      acquire(1, 1000, 2100),
      write(1, 2200, 2201),
      release(1, 2300),
      release(0, 2501),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: 'a delayed write refused by the fence',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1, { token: '1' }),
      fault('delay-write', 90, 2500, client(0), { durationMs: 2400 }),
      write(0, 100, 2500, 'stale-token'),
      acquire(1, 1000, 2100, { token: '2' }),
      write(1, 2200, 2201),
      release(1, 2300),
      release(0, 2501),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: 'a slow acquire: the lease counts from its invoke, not its completion',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 600),
      fault('pause-holder', 700, 2900, client(0), { durationMs: 2200 }),
      acquire(1, 1500, 2100),
      release(1, 2200),
      write(0, 2950, 2951),
      release(0, 2960),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "Redlock's drift budget: a grant just before the TTL is the holder's, not the lock's",
    terms: REDLOCK,
    ops: timeline(acquire(0, 0, 5), acquire(1, 1900, 1985), release(1, 1990), write(0, 2000, 2001), release(0, 2100)),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: 'a reported validity shorter than the TTL ends the promise (redlock-npm with little left)',
    terms: REDLOCK,
    ops: timeline(
      acquire(0, 0, 1900, { validityMs: 50 }),
      acquire(1, 1800, 1950),
      release(1, 1960),
      write(0, 1970, 1971),
      release(0, 2000),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "a waiting acquire's lease began at an instant not in the history: acting before its latest end is unknown",
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1990),
      acquire(1, 1000, 2050),
      release(1, 2060),
      write(0, 2100, 2101),
      release(0, 2200),
    ),
    expected: [[0, 1, 'unknown']],
  },
  {
    name: 'a retried release whose first reply was lost: no overlap from the retry',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      write(0, 10, 11),
      release(0, 100, 1100, 'fail'),
      acquire(1, 150, 151),
      write(1, 200, 201),
      release(1, 300),
      release(0, 1200),
    ),
    expected: [],
  },
  {
    name: 'a long hold overlapping a later, non-adjacent one',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      acquire(1, 100, 101),
      release(1, 150),
      acquire(2, 200, 201),
      release(2, 300),
      release(0, 1800),
    ),
    expected: [
      [0, 1, 'broke'],
      [0, 2, 'broke'],
    ],
  },
  {
    name: 'a pause chain: each paused holder outlived its lease, the first overlapping both later ones',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      fault('pause-holder', 5, 6000, client(0), { durationMs: 6000 }),
      acquire(1, 1000, 2100),
      fault('pause-holder', 2105, 4500, client(1), { durationMs: 2400 }),
      acquire(2, 2200, 3200),
      write(2, 3210, 3211),
      release(2, 3300),
      write(1, 4501, 4502),
      release(1, 4510),
      write(0, 6001, 6002),
      release(0, 6010),
    ),
    expected: [
      [0, 1, 'outlived'],
      [0, 2, 'outlived'],
      [1, 2, 'outlived'],
    ],
  },
  {
    name: 'renewals extend the promise: a grant inside the renewed lease is the lock breaking it',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      renew(0, 600, 602),
      renew(0, 1200, 1202),
      renew(0, 1800, 1802),
      acquire(1, 2400, 2500),
      release(1, 2510),
      write(0, 2600, 2601),
      release(0, 3000),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: "a failed renewal extends nothing: a grant after the last good lease is the holder's outliving, not the lock's",
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      renew(0, 600, 602),
      renew(0, 1200, 1210, false),
      fault('pause-holder', 1300, 3000, client(0), { durationMs: 1700 }),
      acquire(1, 1500, 2700),
      release(1, 2710),
      release(0, 3001),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "a waiting acquire granted inside another's renewed lease breaks it, though its own window is empty",
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      renew(0, 600, 602),
      renew(0, 1200, 1202),
      renew(0, 1800, 1802),
      renew(0, 2400, 2402),
      acquire(1, 100, 2200),
      release(1, 2300),
      release(0, 4000),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: 'a failed renewal does not shorten what an earlier one promised',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      renew(0, 600, 602),
      renew(0, 1200, 1210, false),
      acquire(1, 1500, 2000),
      write(1, 2010, 2011),
      release(1, 2020),
      release(0, 2100),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: 'a holder told by a failed renewal that its lock is lost gives it up at the release it still sends',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1, { token: '1' }),
      renew(0, 600, 602, true, '1'),
      renew(0, 1200, 1210, false, '1'),
      release(0, 1300),
      acquire(1, 1350, 1400, { token: '2' }),
      release(1, 1500),
    ),
    expected: [],
  },
  {
    name: 'a renewal asked for after the lease lapsed extends nothing',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      fault('pause-client', 100, 2500, client(0), { durationMs: 2400 }),
      acquire(1, 1000, 2100),
      release(1, 2200),
      renew(0, 2550, 2552),
      write(0, 2600, 2601),
      release(0, 2700),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: 'an unknown (info) acquire promises nothing',
    terms: REDIS,
    ops: timeline(acquireInfo(0, 0, 500), acquire(1, 100, 101), write(1, 110, 111), release(1, 400)),
    expected: [],
  },
  {
    name: 'a partitioned ZooKeeper holder whose session expired',
    terms: ZOOKEEPER,
    ops: timeline(
      acquire(0, 0, 5, { validityMs: 4000 }),
      fault('partition', 100, 6000, client(0)),
      acquire(1, 1000, 4100, { validityMs: 4000 }),
      write(1, 4200, 4201),
      release(1, 4300),
      write(0, 6001, 6002),
      release(0, 6003),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: 'ZooKeeper granting inside a live session',
    terms: ZOOKEEPER,
    ops: timeline(
      acquire(0, 0, 5, { validityMs: 4000 }),
      fault('kill', 500, 900, ['zk[0]']),
      acquire(1, 600, 1000, { validityMs: 4000 }),
      release(1, 1100),
      release(0, 1200),
    ),
    expected: [[0, 1, 'broke']],
  },
  {
    name: "a client whose clock runs slow computes Redlock's validity with it: own clock",
    terms: REDLOCK,
    ops: timeline(
      strobe(0, 4000),
      acquire(0, 0, 10, { validityMs: 2900 }),
      acquire(1, 1000, 2100, { validityMs: 1960 }),
      write(1, 2150, 2151),
      release(1, 2200),
      write(0, 2500, 2501),
      release(0, 2600),
    ),
    expected: [[0, 1, 'own-clock']],
  },
  {
    // redlock-v4's margin cell at r = 0.5: its validity (0.99 × TTL − 2 ms of its own clock) outlasts the keys.
    name: 'a holder whose clocks clock-rate-client ran at 0.5 writes inside its validity by its own clock: own clock',
    terms: REDLOCK,
    ops: timeline(
      acquire(0, 0, 10, { validityMs: 1978 }),
      fault('clock-rate-client', 20, 2100, client(0), { rate: 0.5 }),
      acquire(1, 1000, 2050, { validityMs: 1978 }),
      write(1, 2080, 2081),
      release(1, 2090),
      write(0, 2400, 2401),
      release(0, 2410),
    ),
    expected: [[0, 1, 'own-clock']],
  },
  {
    // Seen in redlock-v4's margin cell (seed 7): the holder's acquire retried for 1.4 s; Redlock counts its validity
    // from its last attempt, so its own window ends 1.4 s after the one the history counts from the request.
    name: 'a slowed holder whose acquire retried counts its validity from its grant: own clock, not outlived',
    terms: REDLOCK,
    ops: timeline(
      acquire(0, 0, 1400, { validityMs: 1970 }),
      fault('clock-rate-client', 1410, 3500, client(0), { rate: 0.5 }),
      acquire(1, 2000, 3400, { validityMs: 1970 }),
      write(1, 3450, 3451),
      release(1, 3460),
      write(0, 3600, 3601),
      release(0, 3700),
    ),
    expected: [[0, 1, 'own-clock']],
  },
  {
    name: 'a holder slowed only to 0.9 writes past its validity even by its own clock: outlived',
    terms: REDLOCK,
    ops: timeline(
      acquire(0, 0, 10, { validityMs: 1978 }),
      fault('clock-rate-client', 20, 2100, client(0), { rate: 0.9 }),
      acquire(1, 1000, 2050, { validityMs: 1978 }),
      write(1, 2080, 2081),
      release(1, 2090),
      write(0, 2400, 2401),
      release(0, 2410),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: "another client's slowed clock is no excuse for the holder: outlived",
    terms: REDLOCK,
    ops: timeline(
      acquire(0, 0, 10, { validityMs: 1978 }),
      fault('clock-rate-client', 20, 2100, client(1), { rate: 0.5 }),
      acquire(1, 1000, 2050, { validityMs: 1978 }),
      write(1, 2080, 2081),
      release(1, 2090),
      write(0, 2400, 2401),
      release(0, 2410),
    ),
    expected: [[0, 1, 'outlived']],
  },
  {
    name: 'a plugin measuring its validity on a strobed clock: unknown, never blamed',
    terms: PLUGIN,
    ops: timeline(
      strobe(0, 4000),
      acquire(0, 0, 10, { validityMs: 1500 }),
      acquire(1, 500, 1000, { validityMs: 1500 }),
      release(1, 1100),
      release(0, 1200),
    ),
    expected: [[0, 1, 'unknown']],
  },
  {
    name: 'holds on different accounts never overlap',
    terms: REDIS,
    ops: timeline(
      acquire(0, 0, 1),
      [
        [100, 1, 'invoke', 'acquire', { account: 1 }],
        [101, 1, 'ok', 'acquire', { account: 1, attempts: 1 }],
        [200, 1, 'invoke', 'release', { account: 1 }],
        [201, 1, 'ok', 'release', { account: 1, released: true }],
      ],
      release(0, 300),
    ),
    expected: [],
  },
  {
    name: "one process's consecutive holds are not compared with each other",
    terms: REDIS,
    ops: timeline(acquire(0, 0, 1), release(0, 100), acquire(0, 100, 101), release(0, 200)),
    expected: [],
  },
];
