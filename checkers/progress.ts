import type { Op } from '../history/op.ts';
import { clientExitOf, type ClientExit } from '../history/client-exit.ts';
import { History } from '../history/history.ts';

/**
 * What a run got done, from its history alone. A run that committed nothing never had a chance to lose an
 * update: its checkers pass vacuously, so its verdict must not be VALID (see unknown-reasons.ts).
 */
export interface Progress {
  /** Writes the resource committed: its ledger's rows, or the clients' ok writes where there is no final read. */
  committedWrites: number;
  /** Client slots (0-based) with at least one committed write, ascending. */
  writers: number[];
  acquires: { ok: number; notAcquired: number; timedOut: number; unknown: number };
  /** `connect` ops that failed: the strategy's connect threw or timed out. */
  connectFailures: number;
  lastConnectError?: string;
  /** Client processes that died under the harness, and how many slots stopped being restarted. */
  clientExits: number;
  slotsGaveUp: number;
  lastExit?: ClientExit;
  /**
   * Of those exits, the ones the lock library caused on purpose (ClientExit.libraryCrash), by the error's name:
   * `{ LostLockError: 3 }`. Its behaviour, counted apart (absent in histories from before this field).
   */
  libraryCrashes?: Record<string, number>;
}

/**
 * `concurrency` maps a history process id back to its client slot (process = slot + concurrency × generation,
 * see workloads/client.ts); without it each process id counts as its own writer.
 */
export function progressOf(input: History | readonly Op[], concurrency?: number): Progress {
  const history = History.of(input);
  const slotOf = (process: number) => (concurrency ? process % concurrency : process);
  const ledgers = history.bank.finalReads;
  const writers = new Set<number>();
  let committedWrites = 0;
  for (const { value } of ledgers.values()) {
    // A malformed final read (no ledger) is the lost-updates checker's to report; here it just counts nothing.
    for (const row of Array.isArray(value.ledger) ? value.ledger : []) {
      if (row.account !== value.account) continue;
      committedWrites++;
      writers.add(slotOf(row.process));
    }
  }

  const acquires = { ok: 0, notAcquired: 0, timedOut: 0, unknown: 0 };
  const progress: Progress = {
    committedWrites,
    writers: [],
    acquires,
    connectFailures: 0,
    clientExits: 0,
    slotsGaveUp: 0,
  };
  for (const op of history.ops) {
    if (typeof op.process !== 'number') continue;
    const exit = clientExitOf(op);
    if (exit) {
      progress.clientExits++;
      if (exit.gaveUpAfter !== undefined) progress.slotsGaveUp++;
      progress.lastExit = exit;
      const crash = exit.libraryCrash?.error;
      if (crash) (progress.libraryCrashes ??= {})[crash] = (progress.libraryCrashes[crash] ?? 0) + 1;
    }
    if (op.type === 'invoke') continue;
    const invoke = history.invokeOf(op);
    if (!invoke) continue;
    if (invoke.f === 'connect' && op.type !== 'ok') {
      progress.connectFailures++;
      if (op.error) progress.lastConnectError = op.error;
    }
    if (invoke.f === 'write' && op.type === 'ok') {
      // Accounts the harness could not read at the end: the clients' ok writes are the best record left.
      const account = (op.value as { account?: number } | null)?.account;
      if (typeof account === 'number' && !ledgers.has(account)) {
        progress.committedWrites++;
        writers.add(slotOf(op.process));
      }
    }
    if (invoke.f !== 'acquire') continue;
    if (op.type === 'ok') acquires.ok++;
    else if (op.type === 'fail') acquires.notAcquired++;
    else if (op.error === 'timeout') acquires.timedOut++;
    else acquires.unknown++;
  }
  for (const invoke of history.openInvokes)
    if (typeof invoke.process === 'number' && invoke.f === 'acquire') acquires.unknown++;
  progress.writers = [...writers].sort((a, b) => a - b);
  return progress;
}
