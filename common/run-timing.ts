/**
 * Every duration the harness derives from `--ttl` (and `--pause`), computed here once — fast-check's resolved
 * parameters: the option parser, the run orchestrator, the clients, the faults and the help text read these names
 * instead of redoing the arithmetic. In the foundation because the clients and the faults need it as much as the CLI.
 */

/** The rules, as the help text and the README quote them. */
export const TIMING_RULES = {
  pause: '1.5 × ttl',
  storyWait: '4 × ttl',
  watchdog: 'TTL/3',
  acquireTimeout: '3 × TTL + 1 s',
  stepTimeout: '3 × TTL + 3 s',
} as const;

/** One-way delays the latency fault picks from, as fractions of the TTL: small, a quarter (Redlock's validity
 * shrinks), half (a round trip = TTL). */
const LATENCY_FRACTIONS_OF_TTL = [0.05, 0.25, 0.5] as const;

export interface RunTiming {
  readonly ttlMs: number;
  /** How long a pause fault stops its target (and delay-write holds the write): `--pause`, else 1.5 × TTL, so a
   * paused holder wakes after its lease has run out. */
  readonly pauseMs: number;
  /** The longest a fault that waits for its story holds (pause-holder until another client wrote, …): `--pause`,
   * else 4 × TTL — an etcd lease or a ZooKeeper session expires a little after its TTL, and the next holder still has
   * to acquire and write, on a busy machine too. */
  readonly storyWaitMs: number;
  /** How long a client's acquire may wait for the lock (ctx.acquireTimeoutMs): 3 × TTL + 1 s, so a holder that
   * died with the lock lets it go (one TTL) with room for two more holders before a waiter gives up. */
  readonly acquireTimeoutMs: number;
  /** A step that has not settled after this is `info` and the client goes on as a new process: the acquire
   * timeout + 2 s, so a lock that keeps its own deadline always answers first. */
  readonly stepTimeoutMs: number;
  /** How long the harness waits for its clients to finish their iteration and exit at the end of a run: the acquire
   * timeout + 5 s (a client may be waiting out its acquire). */
  readonly stopGraceMs: number;
  /** How often a --watchdog client renews its lease (Redisson's TTL/3); pause-holder reads it to know when the
   * paused holder's next renewal falls due. */
  readonly watchdogEveryMs: number;
  /** How long a ZooKeeper session may take to connect: it needs a quorum and may try each server — a few session
   * timeouts (3 × TTL), at least 5 s. */
  readonly connectTimeoutMs: number;
  /** clock-strobe flips the clocks every TTL/4 (at least 50 ms), so a lease sees several jumps. */
  readonly clockStrobePeriodMs: number;
  /** The one-way delays the latency fault picks from (each ≥ 1 ms). */
  readonly latencyChoicesMs: readonly number[];
}

/** `pauseMs` is the explicit `--pause`, when given. */
export function runTiming(o: { readonly ttlMs: number; readonly pauseMs?: number }): RunTiming {
  const { ttlMs } = o;
  const acquireTimeoutMs = 3 * ttlMs + 1000;
  return Object.freeze({
    ttlMs,
    pauseMs: o.pauseMs ?? Math.round(1.5 * ttlMs),
    storyWaitMs: o.pauseMs ?? 4 * ttlMs,
    acquireTimeoutMs,
    stepTimeoutMs: acquireTimeoutMs + 2000,
    stopGraceMs: acquireTimeoutMs + 5000,
    watchdogEveryMs: Math.max(1, Math.floor(ttlMs / 3)),
    connectTimeoutMs: Math.max(5_000, 3 * ttlMs),
    clockStrobePeriodMs: Math.max(50, Math.round(ttlMs / 4)),
    latencyChoicesMs: Object.freeze(LATENCY_FRACTIONS_OF_TTL.map((f) => Math.max(1, Math.round(f * ttlMs)))),
  });
}

/**
 * A matrix scenario's floor as a fraction of the TTL, in whole ms: a think floor rounds to the nearest ms, a
 * restart-delay floor rounds up (a node must stay down at least that long).
 */
export function ttlFractionMs(ttlMs: number, fraction: number, round: 'nearest' | 'up'): number {
  return round === 'up' ? Math.ceil(fraction * ttlMs) : Math.round(fraction * ttlMs);
}
