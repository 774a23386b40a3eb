/**
 * What a fault needs of the run, declared by the fault itself: the harness prepares the run from these (boots a
 * failover pair, routes clients through proxies of their own, warns about a --time-limit too short), so no fault
 * is named outside its own folder and its line in faults/catalogue.ts (its facts' `movesClocks` asks for the clock
 * shim). Each field is absent when the fault does not need it.
 */
export interface FaultNeeds {
  /** A Redis primary + replica pair, the clients reaching the first Redis through the primary's proxy. */
  readonly failoverPair?: true;
  /** Each client reaches its servers through proxies of its own, chained before the shared ones. */
  readonly ownClientRoutes?: true;
  /**
   * With ownClientRoutes: the lock's own Postgres sessions (LockContext.postgresUrl) get a route of their own too,
   * framed as Postgres (nemesis/client-routes.ts LOCK_SESSIONS), so the fault can aim at one of their statements.
   */
  readonly lockSessionRoutes?: true;
  /**
   * Clients reach the servers through the harness's TCP proxies (the fault cuts, slows, holds or re-points
   * connections there). When no fault of a run needs them, clients connect to the servers' ports directly, and
   * the latencies a run records carry no proxy hop.
   */
  readonly clientProxies?: true;
  /**
   * Every server started in a cgroup2 of its own, and the run's nftables table (nemesis/server-partition): the
   * fault cuts links between servers. Local backend, root, `nft` and a cgroup2 mount; refused with exit 254 otherwise.
   */
  readonly serverNet?: true;
  /**
   * The fault aims by the clients' ops as they happen (`ctx.sections`: the next client to enter its critical
   * section; a write to hold): every client sends each op the moment it completes. Without it in the run, clients
   * send their ops together, at most every OP_BATCH_MS (workloads/op-outbox.ts), and `ctx.sections.next` throws.
   */
  readonly liveOps?: true;
  /**
   * The shortest run (ms from the clients' start) in which the fault can show anything at all. Absent when the
   * fault acts at once: any run long enough to reach it is long enough.
   */
  readonly minRunMs?: (timing: FaultTiming) => number;
  /**
   * A fault that tells a story (its catalogue row's `story`): the least time its story needs from the strike to the
   * clients' stop — the lease running out, another client taking the lock, the holder's write. The schedule does not
   * strike later than that before the clients stop (`FaultContext.aim`): a shot the run's end would cut short tests
   * nothing.
   */
  readonly shotMs?: (timing: ShotTiming) => number;
  /**
   * The shortest critical section (--think) in which the fault's story can complete: a restarted master or a promoted
   * replica answers 100–300 ms after the strike here, and a holder that has already written by then leaves nothing to
   * lose. A run whose user did not give --think gets at least this (harness/run-plan.ts).
   */
  readonly minSectionMs?: (timing: { ttlMs: number }) => number;
  /**
   * How the fault acts on a target's servers (`--target`: servers fencepost did not start): `{ adapter }`, the
   * action it needs of the adapter the target file names for it (pause → resume, kill → start); a string, why it
   * cannot act on such servers at all. Absent: it acts on the clients or the harness's own proxies, and works against
   * a target unchanged.
   */
  readonly onTarget?: { readonly adapter: 'pause' | 'kill' } | string;
}

/** Why the clock faults cannot move a target's clocks. */
export const NO_TARGET_CLOCK =
  "it moves a server's wall clock through an LD_PRELOAD shim loaded when fencepost starts the server, and fencepost starts none of a target's";

/** A section wider than a restart or a failover: 0.4 × TTL, well inside the lock's validity (oracle.ts says why). */
export const SECTION_TTL_FRACTION = 0.4;
export const widerThanARestart = ({ ttlMs }: { ttlMs: number }): number => Math.round(SECTION_TTL_FRACTION * ttlMs);

/** The run's timing a shot's story depends on. */
export interface ShotTiming {
  ttlMs: number;
  thinkMs: number;
  restartDelayMs: number;
}

/** A story that ends with the lease running out, another client writing, and the holder's write after it. */
export const pastTheLease = ({ ttlMs }: ShotTiming): number => ttlMs + AFTER_HOLD_MS;

/** A story that ends with another client granted at once and the holder's write after its think time. */
export const pastTheSection = ({ thinkMs, restartDelayMs }: ShotTiming): number =>
  restartDelayMs + thinkMs + AFTER_HOLD_MS;

/** The schedule's timing a minimum run depends on. */
export interface FaultTiming {
  /** Quiet time before the first fault. */
  firstDelayMs: number;
  /** --pause: how long a pause (or a held write) lasts. */
  pauseMs: number;
}

/** After a hold ends: the resumed holder still has to finish its write, and the checker needs the ops around it. */
export const AFTER_HOLD_MS = 1000;

/**
 * The minimum run of a fault whose effect only shows once the stopped process runs again (a paused holder writes
 * after the pause) or once a held write arrives: the first fault, the whole hold, and the write after it.
 */
export function pastTheHold({ firstDelayMs, pauseMs }: FaultTiming): number {
  return firstDelayMs + pauseMs + AFTER_HOLD_MS;
}
