import type { RequirementSpec } from '../cluster/requirement.ts';
import type { LockBench } from './lock-bench.ts';
import type { MarginCell } from './margin-cell.ts';
import type { LostReplyCell } from './lost-reply-cell.ts';
import type { ClockAssumption } from './clock-assumption.ts';
import type { OracleCell, OracleColumnId, RemedyScenarioId } from './oracle-cell.ts';

/**
 * One built-in lock, whole: what `locks/<name>/row.ts` declares — where its code is, what it needs installed, and
 * what it is expected to do — and `registry.ts` lists, one line per lock. Every other room reads a lock's facts from
 * here (the matrix its cells, the choosing and findings pages their words, the nightly its sample), so a new lock is
 * its folder and one line, and a row missing a part does not compile.
 */
export interface LockRow {
  /** The strategy module (TypeScript) or the manifest (another language), loaded only when the lock runs. */
  readonly module: string;
  /**
   * An npm row's pinned install, installed into the per-machine cache before a run's clients start
   * (npm-lock-cache.ts): the lock folder whose `npm/` holds `package.json` and `package-lock.json`.
   */
  readonly npm?: string;
  /**
   * A row in another language: the provisioning requirement of its library (what it is, Debian's packages and how
   * to tell it is there: cluster/requirement.ts, installed by cluster/provision.ts) and whether its glue is compiled — then `<command> --build` runs once before a run's
   * clients start, so no client's connect waits for a compiler (it is cached per machine: a no-op after).
   */
  readonly foreign?: ForeignLibrary;
  /**
   * The key its lock takes for an account on a target's servers, in the run's namespace `ns` under the target's
   * prefix, for a lock whose keys fencepost puts there itself; a lock without it must honour `ctx.keyPrefix` on its own.
   */
  readonly targetKey?: (ns: string, account: string) => string;
  /**
   * Its lock lives in a Postgres session (an advisory lock), which ending the session frees: what kill-session
   * strikes. A built-in row without it holds nothing there, and that fault is refused for it.
   */
  readonly postgresSession?: true;
  /**
   * Its acquire makes a ZooKeeper lock node with a per-client prefix in its name, by which its recovery finds the node
   * after a lost reply: the request that makes it, as the ZooKeeper framing names it (`create`; `create2` for a
   * client that asks for the node's Stat). What reply-loss-create aims at; a built-in row without it is refused.
   */
  readonly lockNodeCreate?: 'create' | 'create2';
  /**
   * Why it holds no lease that ends by time (a lock that lives as long as a session or a transaction, a version
   * column, no lock at all): a fault whose story is a slowed holder outrunning its lease (clock-rate-client) has
   * nothing to act on, and is refused with this reason. Absent: its lock ends by time.
   */
  readonly noLease?: string;
  /**
   * How its lease is timed by the clock of the Postgres server that keeps it (a lock_until from `now()`), in words:
   * what clock-rate runs at a rate there. Absent for a lock kept in Postgres, the server's clock plays no part in it
   * (an advisory lock, a lease on the clients' clocks), and clock-rate is refused.
   */
  readonly databaseClock?: string;
  /**
   * A busy acquire that says no only after waiting out the lease it read, `leases` times (a library with no acquire
   * timeout of its own, whose retries end): lock-check gives its refusal step that long, so the library is checked as
   * its documentation uses it. Absent: a busy acquire answers within the acquire budget. A lock that never says no
   * (redis-lock: it retries forever) declares nothing, and its check fails.
   */
  readonly busyAcquireWaits?: { readonly leases: number; readonly why: string };
  /**
   * What it states it assumes of the clocks' rate (locks/clock-assumption.ts: Redlock's 0.01), so a run that moved a
   * clock's rate says whether it went beyond it. Absent: it states nothing.
   */
  readonly clockAssumption?: ClockAssumption;
  /** Where it keeps its lock and what it is (docs/choosing.md). */
  readonly place: { readonly store: LockStore; readonly from: LockOrigin };
  /** The fault table's row: a cell for every column (matrix/oracle.ts ORACLE_COLUMNS). */
  readonly faults: Readonly<Record<OracleColumnId, OracleCell>>;
  /** The remedy table's row: a cell for every scenario (matrix/remedy-oracle.ts REMEDY_SCENARIOS). */
  readonly remedies: Readonly<Record<RemedyScenarioId, OracleCell>>;
  /**
   * Cells at the lock's own clock thresholds (locks/margin-cell.ts): a rate a clear margin to each side of where its
   * renewal or validity arithmetic breaks, each with its prediction. Absent: none is measured for it.
   */
  readonly margins?: readonly MarginCell[];
  /**
   * What its lock does when the reply to its acquire is lost after the server acted (locks/lost-reply-cell.ts): a
   * scenario each, with its prediction. Absent: none is measured for it.
   */
  readonly lostReplies?: readonly LostReplyCell[];
  /** An npm library's words in docs/findings.md. */
  readonly findings?: LibraryFindings;
  /**
   * Which of its cells the nightly runs (nightly/nightly-library-sample.ts says why the library rows are sampled),
   * or all of them; a choice every row makes, so a new row cannot run whole every night by omission.
   */
  readonly nightly: 'every-cell' | readonly (OracleColumnId | RemedyScenarioId | MarginId)[];
  /** What the benchmarks measure of it (the overhead bench: its floor and its timed op); absent, none measures it. */
  readonly bench?: LockBench;
}

/**
 * A margin cell's id (locks/margin-cell.ts), as a row's nightly sample names it: `margin-` and what it sets, so a
 * misspelt column id still does not compile.
 */
export type MarginId = `margin-${string}`;

/** A row in another language: its library's requirement, and whether its glue is compiled. */
export interface ForeignLibrary {
  readonly library: RequirementSpec;
  readonly compiled: boolean;
  /**
   * What a user of the library should do, from what fencepost measured of it (docs/locks.md): the choosing page's
   * line for it and the "what to do" of a run of it, as an npm library's findings advice is.
   */
  readonly advice: string;
}

export type LockStore = 'Redis' | 'etcd' | 'ZooKeeper' | 'Postgres' | 'DynamoDB' | 'none';
/** Where a lock comes from, in the order docs/locks.md lists them (and doctor installs the libraries: by language). */
export const LOCK_ORIGINS = ['fencepost', 'npm', 'Python', 'Java', 'Go'] as const;
export type LockOrigin = (typeof LOCK_ORIGINS)[number];

/**
 * The words of docs/findings.md that are not data, for one library: what it is and how the row uses it, a one-line
 * verdict, what a user of it should do, and — where a measurement contradicted the oracle's prediction — what was
 * measured instead and why it differs. The cells themselves come from the oracle and the runs (matrix/findings-page.ts).
 */
export interface LibraryFindings {
  /** The package and version the row pins (locks/<row>/npm/package.json). */
  readonly package: string;
  /** How the row uses it: its README's example, its defaults, the client. */
  readonly usage: string;
  /** In one line, for the table at the top. */
  readonly verdict: string;
  readonly advice: string;
  /** What `npm run jepsen -- lock-check <row>` said (the contract: acquire, a busy lock refused, hand-over, …). */
  readonly lockCheck?: string;
  /** By column id: the measurement that contradicted the prediction, and why (the measurement wins). */
  readonly differs?: Readonly<Partial<Record<OracleColumnId | RemedyScenarioId | MarginId, string>>>;
}
