/**
 * One line of a run's history file (its name: store/run-dir.ts) — the only thing that passes from "run" to "check".
 *
 * The shape is Jepsen's: every client step is an `invoke` followed by exactly one completion from the same
 * process: `ok` (took effect), `fail` (definitely did not take effect) or `info` (unknown: timeout, crash).
 * After an `info` the client carries on under a *new* process id, because the old one may still have an
 * operation in flight (Jepsen's rule); so a process never has two invocations open at once.
 */
export type OpType = 'invoke' | 'ok' | 'fail' | 'info';

/**
 * Client processes are numbered from 0. `nemesis` marks fault start/end records; `harness` marks the
 * harness's own reads of the resource (the final state and ledger after the clients stopped).
 */
export type ProcessId = number | 'nemesis' | 'harness';

export interface Op<V = unknown> {
  /** Position in the journal, 0-based, dense. */
  index: number;
  /**
   * Nanoseconds since the run started on the host's monotonic clock (CLOCK_MONOTONIC, which every process on the
   * host shares and no clock fault touches), stamped where the op happened: by a client just before it calls and
   * just after the call returns, so the recorded interval contains the real one.
   */
  time: number;
  process: ProcessId;
  type: OpType;
  /** What the op does: `acquire`, `read`, `write`, `release`, `renew`, `final-read`, or a fault name. */
  f: string;
  value: V;
  /** Why an op failed or is unknown (`stale-token`, `timeout`, `lock-lost`, an exception message, …). */
  error?: string;
}

/** An op as a writer hands it to the journal: the journal assigns `index` and `time`. */
export type OpInput<V = unknown> = Omit<Op<V>, 'index' | 'time'> & { time?: number };
