import { checkRun } from '../../checkers/check-run.ts';
import type { RunResults } from '../../checkers/run-results.ts';
import type { NemesisValue } from '../../history/bank.ts';
import type { Op, OpInput } from '../../history/op.ts';
import { runClientLoop } from '../../workloads/client-loop.ts';
import { seededRandom } from '../../locks/strategy.ts';
import { MemoryLock } from './memory-lock.ts';
import { MemoryResource } from './memory-resource.ts';
import { VirtualTime } from './virtual-time.ts';

/**
 * A bank run without servers and without forking: the real client loop (workloads/client-loop.ts), one per
 * client, in-process on a virtual clock, against an in-memory lock (memory-lock.ts) and resource
 * (memory-resource.ts). Its histories have the shapes and the step rules of a real run because the same code
 * makes them; deterministic for a seed. The one bank simulator of the tests and of `npm run bench -- checker`.
 */
export interface MemoryBankOptions {
  clients?: number;
  accounts?: number;
  /** Stop starting iterations at this virtual time (ms)… */
  durationMs?: number;
  /** …or once the history has this many entries. */
  stopAfterOps?: number;
  ttlMs?: number;
  thinkMs?: number;
  seed?: number;
  /** Writes carry the token and the resource refuses stale ones (`--fencing`). */
  fencing?: boolean;
  /** Chance that an acquire is granted although another client holds the lock. */
  brokenLockRate?: number;
  /** Chance that a write times out (`info`); it lands or not at random, and the client continues as a new process. */
  infoRate?: number;
  /** Stop the lock holder after its read, at the first read completing after `atMs` (pause-holder). */
  pause?: { atMs: number; durationMs: number } | null;
  /** A hostile string put into the pause's nemesis note, a read's error (an `info`) and one grant's token. */
  inject?: string;
}

export interface MemoryBankRun {
  history: Op[];
  /** Acquires granted while the lock was held. */
  brokenGrants: number;
}

const NEVER = Number.MAX_SAFE_INTEGER;

export async function runMemoryBank(opts: MemoryBankOptions): Promise<MemoryBankRun> {
  const n = opts.clients ?? 5;
  const accounts = opts.accounts ?? 1;
  const duration = opts.durationMs ?? NEVER;
  const seed = opts.seed ?? 1;
  const ttlMs = opts.ttlMs ?? 2000;
  const random = seededRandom(seed);
  const time = new VirtualTime();
  const between = (lo: number, hi: number) => () => lo + random() * (hi - lo);

  const entries: { ms: number; seq: number; op: OpInput }[] = [];
  const emitAt = (ms: number, op: OpInput) => entries.push({ ms, seq: entries.length, op });
  const lastProcess = new Array<number>(n).fill(0);
  const pausedUntil = new Array<number>(n).fill(0);
  let pauseDone = !opts.pause;
  let injectedInfo = !opts.inject;

  const lock = new MemoryLock(time, {
    name: 'memory',
    ttlMs,
    acquireTimeoutMs: 3000,
    brokenRate: opts.brokenLockRate,
    random,
    latency: between(0.3, 1.8),
    ...(opts.inject ? { tokenOverride: { grant: n, token: opts.inject } } : {}),
  });
  const resource = new MemoryResource(
    time,
    { accounts, latency: between(0.5, 2.5), infoRate: opts.infoRate, random },
    {
      beforeRead(slot) {
        if (injectedInfo || slot !== 1 || time.nowMs < Math.min(duration, 20_000) * 0.25) return undefined;
        injectedInfo = true;
        return opts.inject;
      },
      afterRead(slot) {
        if (pauseDone || time.nowMs < opts.pause!.atMs) return;
        // The nemesis SIGSTOPs the holder between its read and its write: Kleppmann's scenario.
        pauseDone = true;
        const p = lastProcess[slot];
        const start = time.nowMs + 2;
        const end = start + opts.pause!.durationMs;
        pausedUntil[slot] = end;
        const targets = [`client p${p} (pid ${40_000 + p})`];
        const note = opts.inject ? `SIGSTOP sent ${opts.inject}` : 'SIGSTOP between read and write';
        emitAt(start, {
          process: 'nemesis',
          type: 'info',
          f: 'pause-holder',
          value: {
            phase: 'start',
            targets,
            params: { durationMs: opts.pause!.durationMs },
            note,
          } satisfies NemesisValue,
        });
        emitAt(end, {
          process: 'nemesis',
          type: 'info',
          f: 'pause-holder',
          value: { phase: 'end', targets } satisfies NemesisValue,
        });
      },
    },
  );

  const stopping = () => time.nowMs >= duration || entries.length >= (opts.stopAfterOps ?? NEVER);
  let finished = 0;
  const loops = Array.from({ length: n }, (_, slot) =>
    runClientLoop({
      spec: {
        slot,
        concurrency: n,
        ctx: {
          redis: [],
          etcd: [],
          zookeeper: '',
          ttlMs,
          acquireTimeoutMs: 3000,
          client: slot,
          seed: seed * 1000 + slot,
        },
        mode: opts.fencing ? 'fenced' : 'plain',
        thinkMs: opts.thinkMs ?? 100,
        accounts,
        watchdog: false,
        seed: seed * 1000 + slot,
        stepTimeoutMs: 10_000,
      },
      strategy: lock.strategy(),
      connectResource: async () => resource.connect(slot),
      clock: time.clientClock(() => pausedUntil[slot]),
      emit: (op, at) => {
        if (typeof op.process === 'number' && op.process < 100_000) lastProcess[slot] = op.process;
        emitAt(Number(at) / 1e6, op);
      },
      log: () => {},
      stopping,
    }).finally(() => finished++),
  );
  await time.run(() => finished === n);
  await Promise.all(loops);

  let end = Math.max(0, ...entries.map((e) => e.ms)) + 5;
  for (let account = 0; account < accounts; account++) {
    emitAt(end, { process: 'harness', type: 'invoke', f: 'final-read', value: { account } });
    emitAt((end += 3), { process: 'harness', type: 'ok', f: 'final-read', value: resource.finalRead(account) });
  }
  entries.sort((a, b) => a.ms - b.ms || a.seq - b.seq);
  const history = entries.map(({ ms, op }, index) => ({ ...op, index, time: Math.round(ms * 1e6) }) as Op);
  return { history, brokenGrants: lock.brokenGrants };
}

/** A history of about `ops` entries from `processes` clients (think time ~0.5 ms): for checkers and the bench. */
export function generateBankHistory(opts: {
  ops: number;
  processes: number;
  accounts?: number;
  seed?: number;
  brokenLockRate?: number;
  infoRate?: number;
  fencing?: boolean;
}): Promise<MemoryBankRun> {
  return runMemoryBank({
    clients: opts.processes,
    accounts: opts.accounts,
    seed: opts.seed,
    brokenLockRate: opts.brokenLockRate,
    infoRate: opts.infoRate,
    fencing: opts.fencing,
    stopAfterOps: opts.ops,
    thinkMs: 0.5,
  });
}

export interface SimRun {
  history: Op[];
  results: RunResults;
  test: {
    argv: string[];
    seed: number;
    config: Record<string, unknown>;
    versions: Record<string, string>;
    startedAt: string;
    lock: string;
  };
}

/**
 * A whole run as the report sees it — history, results from the real checkers, test.json — for the report's
 * tests: 5 clients for 20 s by default, under a pause-holder when asked.
 */
export async function simulateBankRun(
  opts: MemoryBankOptions & {
    lock?: string;
    clock?: { atMs: number; durationMs: number; offsetMs: number } | null;
  } = {},
): Promise<SimRun> {
  const o = { clients: 5, durationMs: 20_000, ttlMs: 2000, thinkMs: 100, seed: 42, ...opts };
  const { history } = await runMemoryBank(o);
  if (o.clock) {
    // Drawn only: the in-memory lock keeps no wall clock to jump.
    const targets = ['redis[0]'];
    const at = (ms: number, value: NemesisValue): Op => ({
      index: 0,
      time: Math.round(ms * 1e6),
      process: 'nemesis',
      type: 'info',
      f: 'clock',
      value,
    });
    history.push(
      at(o.clock.atMs, { phase: 'start', targets, params: { offsetMs: o.clock.offsetMs } }),
      at(o.clock.atMs + o.clock.durationMs, { phase: 'end', targets, params: { offsetMs: 0 } }),
    );
    history.sort((a, b) => a.time - b.time).forEach((op, i) => (op.index = i));
  }
  const lock = o.lock ?? (o.fencing ? 'etcd' : 'redis');
  const faults = [...(o.pause ? ['pause-holder'] : []), ...(o.clock ? ['clock'] : [])];
  const timeLimitS = Math.round(o.durationMs / 1000);
  return {
    history,
    results: checkRun(history, { fencing: !!o.fencing, deadlineMs: 10_000 }),
    test: {
      argv: [
        `--lock=${lock}`,
        `--nemesis=${faults.join(',') || 'none'}`,
        `--ttl=${o.ttlMs}`,
        `--time-limit=${timeLimitS}`,
        ...(o.fencing ? ['--fencing'] : []),
      ],
      seed: o.seed,
      config: {
        command: 'run',
        lock,
        nemesis: faults,
        ttlMs: o.ttlMs,
        fencing: !!o.fencing,
        concurrency: o.clients,
        timeLimitS,
        thinkMs: o.thinkMs,
        accounts: 1,
        seed: o.seed,
        backend: 'local',
      },
      versions: { node: 'v20.20.2', 'redis-server': '7.0.15', postgres: '15.8' },
      startedAt: '2026-11-29T08:30:00.000Z',
      lock,
    },
  };
}
