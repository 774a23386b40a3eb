import type { ClusterNode, RedisServer } from '../cluster/node.ts';
import type { PgNode } from '../cluster/servers/pg-node.ts';
import type { ZkNode } from '../cluster/servers/zk-node.ts';
import type { ClockFamily, ClockScope } from './clock/clock-record.ts';
import type { RedisKeyProbe } from './redis-key-probe.ts';

/** One reading of a server's clock that matters, in ms of its own time (rising as it runs), and when on the harness's clock. */
export interface ServerClockSample {
  readonly ms: number;
  readonly atMs: number;
}

/**
 * How clock-rate (faults/clock-rate/inject.ts) runs one kind of server's clock and reads it back from outside: which clocks the rate moves and with
 * what scope, a reading of the clock the lock's lease runs on (its slope on the harness's clock is the proof), and
 * the server's time around the heal (it must never step back).
 */
export interface ServerClockProbe {
  readonly clocks: readonly ClockFamily[];
  readonly scope: ClockScope;
  /** The first reading, taken at the strike (Redis sets its probe key first). */
  first(): Promise<ServerClockSample | undefined>;
  next(): Promise<ServerClockSample | undefined>;
  /** The server's own time now, µs: what the heal must not step back. */
  nowUs(): Promise<number | undefined>;
}

/** The probe key: not an account's lock key, so no aim or key read mistakes it for one. */
const PROBE_KEY = 'fencepost:clock-rate-probe';
/** The probe's TTL in the node's own time: long enough to outlive any shot at the fastest rate. */
const PROBE_PX_MS = 3_600_000;

/**
 * The probe of a struck node, by its kind:
 * - Redis: its wall clock only (key expiry runs on it; waits and the monotonic clock at real speed); a probe key's
 *   PTTL falls at the rate. `TIME` around the heal.
 * - ZooKeeper: the whole JVM at the rate (scope process): sessions expire by `Time.currentElapsedTime()`, which is
 *   System.nanoTime — CLOCK_MONOTONIC through libc — and its timed waits (Thread.sleep, Object.wait: the session
 *   tracker's and the pings') must keep pace with that clock or the server stalls (shim.c). `mntr`'s zk_uptime is that
 *   clock read from outside.
 * - Postgres: its wall clock only: `now()` and `clock_timestamp()`, what a database-timed lease is stamped and
 *   compared with; `clock_timestamp()` read over the harness's superuser session.
 */
export function serverClockProbe(node: ClusterNode, redisKeys: RedisKeyProbe): ServerClockProbe | null {
  if (node.kind === 'redis') {
    const r = node as RedisServer;
    const sample = (s: { pttlMs: number; atMs: number } | undefined) => s && { ms: -s.pttlMs, atMs: s.atMs };
    return {
      clocks: ['realtime'],
      scope: 'wall',
      first: async () => sample(await redisKeys.setProbe(r, PROBE_KEY, PROBE_PX_MS)),
      next: async () => sample(await redisKeys.pttlSample(r, PROBE_KEY)),
      nowUs: () => redisKeys.timeUs(r),
    };
  }
  if (node.kind === 'zk') {
    const z = node as ZkNode;
    const sample = async () => {
      const s = await z.uptimeSample();
      return s && { ms: s.uptimeMs, atMs: s.atMs };
    };
    return {
      clocks: ['realtime', 'monotonic'],
      scope: 'process',
      first: sample,
      next: sample,
      nowUs: async () => {
        const s = await z.uptimeSample();
        return s && s.uptimeMs * 1000;
      },
    };
  }
  if (node.kind === 'pg') {
    const p = node as PgNode;
    const sample = async () => {
      const s = await p.clockSample();
      return s && { ms: s.us / 1000, atMs: s.atMs };
    };
    return {
      clocks: ['realtime'],
      scope: 'wall',
      first: sample,
      next: sample,
      nowUs: async () => (await p.clockSample())?.us,
    };
  }
  return null;
}
