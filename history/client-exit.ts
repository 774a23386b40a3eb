/**
 * How the history records a client OS process that died under the harness (a plugin calling process.exit, an
 * uncaught exception, the OOM killer). Its open op, if any, completes as `info` with error `client-exited` and
 * the exit in its value; a death with nothing open is a bare `info` note, f `client-exit`, of the dead process
 * id. Either way the slot goes on under a new process id (Jepsen's rule for `info`), or gives up after too many
 * deaths so a run whose clients keep dying ends instead of spinning.
 */
export const CLIENT_EXITED = 'client-exited';
export const CLIENT_EXIT_NOTE = 'client-exit';

export interface ClientExit {
  slot: number;
  code: number | null;
  signal: string | null;
  /** The last lines the process wrote to its log (stdout and stderr), oldest first. */
  lastLines: string[];
  /** Set when the slot is not restarted any more: it died this many times. */
  gaveUpAfter?: number;
  /**
   * Set when the lock library ended the process on purpose (LockStrategy.libraryCrash): the error it raised, by name,
   * and its message. Its documented behaviour, not the client failing: it does not count toward the give-up limit.
   */
  libraryCrash?: { error: string; message: string };
}

/** The exit a history op records, if it records one (the info completion or the bare note). */
export function clientExitOf(op: { type: string; error?: string; value: unknown }): ClientExit | undefined {
  if (op.type !== 'info' || op.error !== CLIENT_EXITED) return undefined;
  const v = op.value as { exit?: ClientExit } | ClientExit | null;
  if (v && typeof v === 'object' && 'exit' in v && v.exit) return v.exit;
  return v && typeof v === 'object' && 'slot' in v ? (v as ClientExit) : undefined;
}
