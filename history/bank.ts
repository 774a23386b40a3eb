/**
 * Value shapes of the bank workload's ops. Checkers and reports read these; clients write them.
 * Tokens are strings because etcd revisions and ZooKeeper zxids are 64-bit (compare them as BigInt).
 *
 * One client iteration:  acquire → read → (think) → write → release
 *
 *  f          invoke value                         ok value                                   fail/info
 *  acquire    {account}                            {account, token?, validityMs?, attempts}   error: timeout | …
 *  read       {account, token?}                    {account, balance, version, lastWriteId}   fail error: stale-token (fenced:
 *                                                                                              the row saw a newer token)
 *  write      {account, from, to, delta, token?,   {…invoke value, writeId}                   fail error: stale-token |
 *              basedOn}                                                                        version-conflict | lock-lost
 *  release    {account, token?}                    {account, released: boolean}               error
 *  renew      {account, token?}                    {account, validityMs?}                     fail error: lock-lost (watchdog)
 *
 *  Harness, after the clients stopped:
 *  final-read {account}                            FinalRead                                  error
 *
 *  Nemesis (process "nemesis", type "info"):
 *  <fault>    NemesisValue
 */
export interface AccountRef {
  account: number;
}

export interface AcquireOk extends AccountRef {
  /** The fencing token if the strategy has one (etcd create revision, a ZooKeeper zxid, …). */
  token?: string;
  /** Redlock: how long the lock is believed valid from now. */
  validityMs?: number;
  attempts?: number;
  /** What the lock's server said about the grant (Lease.evidence): the Postgres backend that ran the lock call. */
  evidence?: Readonly<Record<string, string | number>>;
}

export interface ReadOk extends AccountRef {
  balance: number;
  version: number;
  /** Id of the ledger row that produced this balance (0 = the initial balance). */
  lastWriteId: number;
}

export interface WriteValue extends AccountRef {
  /** Balance the writer read (its stale-or-not base). */
  from: number;
  /** Balance it writes: from + delta. */
  to: number;
  delta: number;
  token?: string;
  /** `lastWriteId` of the read this write is based on. */
  basedOn: number;
  /** Row version the writer read (the postgres strategy's condition). */
  version?: number;
  /** Set in the `ok` completion: the ledger row id of this committed write. */
  writeId?: number;
}

/** One committed write as the resource recorded it, in commit order (ids increase with commit order). */
export interface LedgerRow {
  writeId: number;
  account: number;
  /** Client process id (as in the history) that wrote it. */
  process: number;
  token: string | null;
  from: number;
  to: number;
  delta: number;
  basedOn: number;
}

export interface FinalRead extends AccountRef {
  initialBalance: number;
  balance: number;
  version: number;
  /** Highest token the row accepted (fenced runs), as a decimal string. */
  fence: string | null;
  ledger: LedgerRow[];
}

export interface NemesisValue {
  phase: 'start' | 'end';
  /** Human-readable targets: `client p3 (pid 4242)`, `redis[1]`, `etcd leader etcd[2]`, … */
  targets: string[];
  /**
   * The fault's evidence, e.g. {durationMs: 3000} or {offsetMs: 120000}: each fault declares its own
   * (faults/<name>/facts.ts) and faults/evidence.ts reads it back; the op vocabulary below the faults knows no fault.
   */
  params?: Readonly<Record<string, unknown>>;
  /** Anything the fault wants a reader to know ("etcd ignores LD_PRELOAD: no skew applied"). */
  note?: string;
}
