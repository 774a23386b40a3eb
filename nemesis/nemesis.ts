import type { AnyCluster } from '../cluster/cluster.ts';
import type { Journal } from '../history/journal.ts';
import type { ClockBoard } from './clock/clock-board.ts';
import type { ServerNet } from './server-partition/server-net.ts';
import type { TcpProxy } from './proxy/tcp-proxy.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { LockServerCounts } from './lock-servers.ts';
import type { LockTree } from '../workloads/foreign/lock-tree.ts';

/**
 * What the nemesis reads of the run's config. The harness's frozen Config (harness/options.ts) satisfies it as it
 * is; declared here so the nemesis depends on the settings it uses, not on the CLI.
 */
export interface NemesisConfig {
  readonly lock: string;
  readonly seed: number;
  readonly concurrency: number;
  readonly ttlMs: number;
  /** How long pause faults last. */
  readonly pauseMs: number;
  /** The longest a fault that waits for its story (pause-holder, delay-write, kill-holder) holds. */
  readonly storyWaitMs: number;
  /** --time-limit: the clients stop this long after they start; a shot that could not finish its story by then is not started. */
  readonly timeLimitS: number;
  readonly restartDelayMs: number;
  readonly nemesisIntervalMs: number;
  readonly clockOffsetS: number;
  /** --clock-rate: how fast clock-rate runs the clocks it strikes (1 = real speed). */
  readonly clockRate: number;
  readonly redisPersistence: 'none' | 'aof-always';
  /** --verbose: the live log prints each fault's raw start and end record instead of a sentence. */
  readonly verbose?: boolean;
  /** --shots: the schedule ends after this many shots; null (or absent) = as many as the run has time for. */
  readonly maxShots?: number | null;
  /** --think: how long a client sleeps between its read and its write. */
  readonly thinkMs: number;
  /** --watchdog: clients renew their lease every TTL/3 while they hold it. */
  readonly watchdog: boolean;
}

/** One client OS process as the nemesis sees it. */
export interface ClientProcess {
  slot: number;
  pid: number;
  /** The history process id the client is currently using (changes after each `info`). */
  process: number;
  /** Whether the nemesis has SIGSTOPped it. */
  paused: boolean;
  exited: boolean;
  /**
   * The client's foreign lock process (a lock in another language), when it runs one: part of the client for every
   * fault — `signal` stops and resumes it with the client, as a GC pause stops a library's keep-alive threads.
   */
  lockProcess?: { pid: number; command: string } | null;
  /**
   * Where the client's lock processes and everything they started are held together (a cgroup, or their process
   * groups): what `signal` stops and resumes, and what a pause's evidence reads (client-target.ts).
   */
  lockTree?: LockTree | null;
}

/** The run's client processes (harness/client-pool.ts's ClientPool is one): what pause faults signal. */
export interface ClientProcesses {
  readonly clients: readonly ClientProcess[];
  /** SIGSTOP or SIGCONT the client in `slot`, keeping `paused` true to what it did. */
  signal(slot: number, signal: 'SIGSTOP' | 'SIGCONT'): void;
  /**
   * SIGKILL the client in `slot` on purpose (kill-holder): its open ops become `info` and the slot restarts under a
   * new process id, as after any client death, but a death the nemesis caused does not count toward the slot's
   * give-up limit (harness/client-pool.ts MAX_CLIENT_DEATHS): that limit is for clients that keep dying by themselves.
   */
  killOnPurpose(slot: number): void;
  /**
   * The client in `slot` reads its wall and monotonic clocks (through the clock shim when it is preloaded) and says
   * what they read, over its IPC channel; null when it did not answer within `timeoutMs` (gone, stopped, or busy).
   */
  readClock?(slot: number, timeoutMs: number): Promise<ClientClockReading | null>;
}

/** A client's own clock readings, and when on the harness's monotonic clock (ms) the question left and the answer came. */
export interface ClientClockReading {
  readonly wallMs: number;
  readonly monoNs: bigint;
  readonly askedAtMs: number;
  readonly answeredAtMs: number;
}

/** What a nemesis may act on. Built by the run orchestrator. */
export interface NemesisEnv {
  config: NemesisConfig;
  /** The resolved fault list (the strategy's defaults when --nemesis wasn't given). */
  faults: FaultName[];
  /** The strategy's servers (its declaration, resolved once by the run): what lock-aimed faults strike. */
  servers: LockServerCounts;
  cluster: AnyCluster;
  clients: ClientProcesses;
  /**
   * Client↔server proxies by node name (`redis[0]`, `etcd[1]`, `zk[2]`, `pg`, `redis-primary`, …). The nemesis
   * adds its own (`redis-replication`, the failover pair's replication link) so the run closes it with the rest.
   */
  proxies: Map<string, TcpProxy>;
  journal: Journal;
  /** Per-process wall-clock offsets, when the run has clock faults (null otherwise: nothing is preloaded). */
  clocks: ClockBoard | null;
  /** The servers' cgroups and nftables table, when the run has server↔server partitions (null otherwise). */
  serverNet: ServerNet | null;
  log: (line: string) => void;
}

/**
 * Contract (Jepsen's Nemesis): `setup` heals anything a previous run may have left (nothing paused, clocks
 * at 0, proxies open); `run` injects faults on its schedule until the signal aborts, recording each fault's
 * start and end as `nemesis` ops; `heal` undoes every fault still active and is safe to call at any time,
 * more than once, including from a signal handler.
 */
export interface Nemesis {
  /** Faults of the run's list that do not apply to it (restart-empty without Redis, …), with why: never injected. */
  readonly skipped: Readonly<Record<string, string>>;
  setup(): Promise<void>;
  run(signal: AbortSignal): Promise<void>;
  /** `interrupted`: the run is being stopped early (Ctrl-C…): heal at once, owing no wait to a normal end. */
  heal(opts?: { interrupted?: boolean }): Promise<void>;
}
