/**
 * Every fault `--nemesis` accepts and what is known about it apart from how it is done: the one place a fault's
 * descriptive facts live (Jepsen's `:perf` map, carried by the fault). The executors live in `nemesis/faults/`,
 * one file per fault named after it (`nemesis/faults/<name>.ts`), and are found from this list; the checkers,
 * the report, the matrix page and `--help` read their facts here. A new fault is its row here, its evidence (the
 * type of its records in fault-evidence.ts, their reader in fault-evidence-decoder.ts), its executor file and its
 * judge (faults/judging/judges.ts): once the row exists the compiler asks for the evidence and the judge, and
 * the registry for the executor (docs/architecture.md#the-code-by-floor).
 *
 * The rows' order is the faults' order wherever they are listed: `--help`, the error for an unknown name, the
 * matrix's columns.
 */

/** What kind of thing a fault does: the report tells a paused process's story for the `pause` family. */
export type FaultFamily = 'pause' | 'crash' | 'clock' | 'network';

/**
 * How a fault aimed at the lock says what it struck in its hit's evidence: `{process}` is the holder it caught
 * (`p3`), `{nodes}` the nodes it struck (`redis[0], redis[2]`).
 */
export interface FaultAimFacts {
  readonly struck: string;
}

/**
 * The names of the steps of the stories aimed faults stand for (FaultFacts.story), as the results and the report
 * name them.
 */
export type StoryStepId =
  | 'stopped'
  | 'killed'
  | 'died'
  | 'struck'
  | 'write-held'
  | 'lease-expired'
  | 'other-wrote'
  | 'granted'
  | 'freed'
  | 'resumed'
  | 'restarted'
  | 'delivered'
  | 'holder-wrote'
  | 'both-wrote';

/**
 * One step of the story an aimed fault stands for. A shot is a hit only when its story completed: every step
 * happened, in order — or the lock observably stopped it at a step that says how it may (`held`), which is the
 * lock passing the test rather than the fault failing to set it.
 */
export interface StoryStepFacts {
  readonly id: StoryStepId;
  /** What must have happened, as the report lists it. */
  readonly says: string;
  /**
   * Present when the lock may stop the story here and be seen doing it: what it then did (another client asked
   * for the lock and was kept out; the resource refused the write). The story is complete then: the lock was put
   * to the test and held. Absent: the step must happen, or the shot tested nothing.
   */
  readonly held?: string;
}

/** Another client's section overlapped the holder's: the write it then commits and the holder's cannot both count. */
const OTHER_WROTE: StoryStepFacts = {
  id: 'other-wrote',
  says: "another client acquired the same account and read it meanwhile, and committed its write (before or after the holder's)",
};
/** The last step of every story where a holder that lost its lock acts on: its write, or being told it lost. */
const HOLDER_WROTE: StoryStepFacts = {
  id: 'holder-wrote',
  says: 'the holder then wrote',
  held: 'its write was refused (a stale token or version), or it learned it had lost the lock and skipped it',
};

/**
 * Another client taking the lock the holder still believes it holds, and reading the balance before the holder's
 * write lands: both critical sections then run on the same balance. A grant whose read comes after the holder's write
 * sees that write: the sections overlapped, but nothing could be lost. The lock has no way to hold here that the
 * history could tell from a server that was merely down or slow: a remedy that stops the story does so at a step
 * of the fault's own (restart-empty's `restarted`).
 */
const GRANTED: StoryStepFacts = {
  id: 'granted',
  says: "another client was granted the account's lock and read the balance before the holder's write completed",
};

/** The second writer of a double grant: the other client's write after its read. */
const BOTH_WROTE: StoryStepFacts = {
  id: 'both-wrote',
  says: 'the other client then wrote too',
  held: 'its write was refused as stale (its token or version)',
};

export interface FaultFacts {
  /** One line for `--help`. */
  readonly help: string;
  readonly family: FaultFamily;
  /**
   * Non-null when the fault aims at the lock: it strikes while a holder is inside its critical section and records
   * where (the `aim` of its start record, nemesis/fault-aim.ts), and a shot is a hit when the history confirms it
   * (checkers/fault-hits.ts). Null for a fault that acts on whatever it finds; its shot is judged by its own judge
   * there, or else by its `end` record's `hit: true` (and `note`).
   */
  readonly aim: FaultAimFacts | null;
  /** What a hit is: what the fault must have done at least once, as "pause-holder fired 3 times but never <hit>". */
  readonly hit: string;
  /**
   * For a fault aimed at the lock: the story it stands for, step by step, each observable in the history and the
   * fault's own records (faults/judging/story.ts judges them). A shot is a hit only when its story completed.
   * Null for a fault that acts on whatever it finds: its own evidence decides.
   */
  readonly story: readonly StoryStepFacts[] | null;
  /** What a story step cannot show for some locks, said rather than guessed (the report prints it with the story). */
  readonly storyLimits?: string;
  /** Whether it moves wall clocks: the run's processes get the LD_PRELOAD clock shim and the report draws offsets. */
  readonly movesClocks: boolean;
  /** Its colour on the report's timeline (`#rrggbb`). */
  readonly colour: string;
}

/** The colour of a fault this fencepost does not know (a history from a newer one). */
export const UNKNOWN_FAULT_COLOUR = '#6b7280';

export const FAULT_CATALOGUE = {
  'pause-holder': {
    help: 'SIGSTOP the client inside its critical section (after its read, before its write) for longer than the TTL',
    family: 'pause',
    aim: { struck: 'paused {process}' },
    hit: 'paused a holder inside its critical section for a TTL',
    story: [
      { id: 'stopped', says: 'the holder was stopped inside its critical section (after its read, before its write)' },
      { id: 'lease-expired', says: 'it stayed stopped for at least the TTL: its lease ran out' },
      OTHER_WROTE,
      { id: 'resumed', says: 'the holder was resumed with the clients still running' },
      HOLDER_WROTE,
    ],
    storyLimits:
      'a lock whose lease never runs out keeps every other client out of a stopped holder: the story cannot complete, and its runs end unknown (kill-holder and the liveness figures show what such a lock costs instead)',
    movesClocks: false,
    colour: '#f59e0b',
  },
  'kill-holder': {
    help: 'SIGKILL the client inside its critical section: its lock must be freed by expiry alone (liveness: how long it kept the others out)',
    family: 'crash',
    aim: { struck: 'killed {process}' },
    hit: 'killed a holder inside its critical section',
    story: [
      { id: 'killed', says: 'the holder was killed inside its critical section' },
      { id: 'died', says: 'its client exit is in the history' },
      { id: 'freed', says: 'another client then acquired the same account: the lock was freed by expiry' },
    ],
    storyLimits:
      'a lock that is never freed after its holder died leaves no story to complete: the runs end unknown, and the liveness checker shows the stall',
    movesClocks: false,
    colour: '#ef4444',
  },
  'kill-session': {
    help: 'end the Postgres session holding the advisory lock of the client inside its critical section (pg_terminate_backend): the lock is freed at once, the holder runs on (a lock that lives in Postgres: advisory-lock)',
    family: 'crash',
    aim: { struck: 'ended the lock session of {process}' },
    hit: "ended the session holding a holder's advisory lock inside its critical section",
    story: [
      {
        id: 'struck',
        says: "the session holding the holder's advisory lock was ended while the holder was inside its critical section",
      },
      GRANTED,
      HOLDER_WROTE,
      BOTH_WROTE,
    ],
    storyLimits:
      "a lock library that dies with its session (its driver's unhandled error ends the holder's process before it writes) shows it as a write skipped with lock-lost, recorded by the client as the library ends it",
    movesClocks: false,
    colour: '#ef4444',
  },
  'pause-client': {
    help: 'SIGSTOP a random client process',
    family: 'pause',
    aim: null,
    hit: 'stopped a live client',
    story: null,
    movesClocks: false,
    colour: '#f59e0b',
  },
  'pause-node': {
    help: 'SIGSTOP a server: a Redis master, the etcd or ZooKeeper leader, or Postgres (all its processes)',
    family: 'pause',
    aim: null,
    hit: 'stopped a live server process',
    story: null,
    movesClocks: false,
    colour: '#f59e0b',
  },
  'restart-empty': {
    help: 'SIGKILL a Redis master holding the lock key, wipe it, restart it empty (see --restart-delay, --redis-persistence)',
    family: 'crash',
    aim: { struck: 'killed {nodes}' },
    hit: 'killed the Redis nodes holding the lock key while its holder was inside its critical section',
    story: [
      {
        id: 'struck',
        says: 'as many of the Redis nodes holding the key as break the lock were killed (and wiped) while the holder was inside its critical section',
      },
      {
        id: 'restarted',
        says: 'they answered again, empty, while the holder was still inside its critical section',
        held: 'they stayed down until every lease they had granted ran out (--restart-delay ≥ TTL), or came back with the key (--redis-persistence=aof-always)',
      },
      GRANTED,
      HOLDER_WROTE,
      BOTH_WROTE,
    ],
    movesClocks: false,
    colour: '#ef4444',
  },
  kill: {
    help: 'SIGKILL and restart (with data, after --restart-delay) an etcd or ZooKeeper node, the leader included; Postgres for --lock=postgres|none',
    family: 'crash',
    aim: null,
    hit: 'killed a server that then rejoined',
    story: null,
    movesClocks: false,
    colour: '#ef4444',
  },
  'leader-churn': {
    help: 'for --pause ms, SIGSTOP the etcd or ZooKeeper leader until another member leads, SIGCONT it, and again with the new leader: elections one after another',
    family: 'pause',
    aim: null,
    hit: 'saw another member take over from a stopped leader',
    story: null,
    movesClocks: false,
    colour: '#f59e0b',
  },
  clock: {
    help: "jump the wall clock of the lock's Redis node(s) forward (LD_PRELOAD shim; etcd ignores it)",
    family: 'clock',
    aim: { struck: 'jumped the clock of {nodes}' },
    hit: 'jumped the clock of a node holding the lock while its holder was inside its critical section',
    story: [
      {
        id: 'struck',
        says: 'the clocks of the nodes holding the key jumped while the holder was inside its critical section',
      },
      GRANTED,
      HOLDER_WROTE,
      BOTH_WROTE,
    ],
    movesClocks: true,
    colour: '#6366f1',
  },
  'clock-strobe': {
    help: "oscillate the wall clocks of the lock's servers and of every client between +offset and real time",
    family: 'clock',
    aim: null,
    hit: 'moved a clock the lock depends on',
    story: null,
    movesClocks: true,
    colour: '#6366f1',
  },
  failover: {
    help: 'kill the Redis primary and promote its replica, losing unreplicated lock keys',
    family: 'crash',
    aim: { struck: 'failed over to {nodes} (no lock key there)' },
    hit: 'promoted a replica without the lock key while a holder was inside its critical section',
    story: [
      {
        id: 'struck',
        says: 'the primary died with the holder inside its critical section, and the promoted replica lacked the key',
      },
      GRANTED,
      HOLDER_WROTE,
      BOTH_WROTE,
    ],
    movesClocks: false,
    colour: '#ef4444',
  },
  partition: {
    help: "cut client↔server traffic through the harness's TCP proxies (connections hang)",
    family: 'network',
    aim: null,
    hit: 'held a byte between the clients and the servers',
    story: null,
    movesClocks: false,
    colour: '#0ea5e9',
  },
  latency: {
    help: "delay client↔server traffic through the harness's TCP proxies",
    family: 'network',
    aim: null,
    hit: 'delayed a byte between the clients and the servers',
    story: null,
    movesClocks: false,
    colour: '#0ea5e9',
  },
  'delay-write': {
    help: 'hold everything the client inside its critical section sends (its write included) in flight for --pause ms, then deliver it: the write arrives after the lease ran out',
    family: 'network',
    aim: null,
    hit: "held the holder's write in flight for a TTL",
    story: [
      { id: 'write-held', says: "the holder's write was sent into the hold" },
      { id: 'lease-expired', says: 'it was held for at least the TTL: the lease ran out meanwhile' },
      OTHER_WROTE,
      { id: 'delivered', says: 'the held bytes were delivered with the clients still running' },
      { ...HOLDER_WROTE, says: 'the held write then arrived and committed' },
    ],
    movesClocks: false,
    // Grey, as before the catalogue: the report's old name patterns matched none of its name.
    colour: UNKNOWN_FAULT_COLOUR,
  },
  // Server↔server partitions (nemesis/server-partition): Jepsen's grudges, cut in nftables between the servers'
  // cgroups. A hit is bytes the drops held between the sides (checkers/fault-hits.ts judgeServerPartition).
  'isolate-leader': {
    help: 'cut the current leader (etcd, ZooKeeper; Redis: the primary from its replica) off from the other servers for --pause ms; clients keep talking to every server (root, local backend)',
    family: 'network',
    aim: null,
    hit: 'held a byte between the leader and the other servers',
    story: null,
    movesClocks: false,
    colour: '#14b8a6',
  },
  'majority-minority': {
    help: 'split the servers (etcd, ZooKeeper) into a random majority and minority for --pause ms (root, local backend)',
    family: 'network',
    aim: null,
    hit: 'held a byte between the majority and the minority of the servers',
    story: null,
    movesClocks: false,
    colour: '#14b8a6',
  },
  bridge: {
    help: 'split the servers into two halves joined by one member that hears both, for --pause ms (3+ members; root, local backend)',
    family: 'network',
    aim: null,
    hit: 'held a byte between the two halves of the servers',
    story: null,
    movesClocks: false,
    colour: '#14b8a6',
  },
  'majorities-ring': {
    help: 'every server hears a majority, no two the same one, for --pause ms (5 members: --etcd-nodes=5 / --zk-nodes=5; root, local backend)',
    family: 'network',
    aim: null,
    hit: 'held a byte between servers across the ring',
    story: null,
    movesClocks: false,
    colour: '#14b8a6',
  },
} as const satisfies Record<string, FaultFacts>;

export type FaultName = keyof typeof FAULT_CATALOGUE;

/** The facts of a fault recorded in a history under any name (one from an older or newer fencepost): null when unknown. */
export function faultFacts(f: string): FaultFacts | null {
  return Object.hasOwn(FAULT_CATALOGUE, f) ? FAULT_CATALOGUE[f as FaultName] : null;
}

/**
 * Whether a fault recorded in a history (any name, also one from an older or newer fencepost) moves wall clocks:
 * the report draws its offsets.
 */
export function movesClocks(f: string): boolean {
  return faultFacts(f)?.movesClocks === true;
}

/** The colour the report draws a fault of any name with. */
export function faultColour(f: string): string {
  return faultFacts(f)?.colour ?? UNKNOWN_FAULT_COLOUR;
}

/**
 * Why the LD_PRELOAD clock shim of the faults that move clocks cannot move a server of this kind (`etcd`, as
 * cluster/node.ts spells it) at all, or null when it can: the one fact the clock faults refuse by and the checker
 * judges an old run's clock jump by.
 */
export function shimCannotMove(kind: string): string | null {
  return kind === 'etcd'
    ? 'etcd is a Go binary that reads the clock through the vDSO, not libc, so the LD_PRELOAD clock shim cannot move it (and its leases run on monotonic time anyway)'
    : null;
}

/** The `faults:` section of `--help`: one line per fault, in catalogue order. */
export function faultHelpLines(indent: string, width: number): string[] {
  return Object.entries(FAULT_CATALOGUE).map(([name, facts]) => `${indent}${name.padEnd(width)} ${facts.help}`);
}
