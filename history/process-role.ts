import type { ProcessId } from './op.ts';

/**
 * Watchdog renewals run beside the client's main loop; Jepsen's rule (one open op per process) gives them a
 * process of their own: `WATCHDOG_PROCESS_OFFSET + p` is process p's watchdog. Only this file does that arithmetic.
 */
const WATCHDOG_PROCESS_OFFSET = 100_000;

/** Who a history process is: a client's main loop, a client's watchdog (`of` = the client's process), or the harness's own. */
export type ProcessRole =
  | { kind: 'client'; process: number }
  | { kind: 'watchdog'; of: number }
  | { kind: 'harness' }
  | { kind: 'nemesis' };

export function processRole(p: ProcessId): ProcessRole {
  if (p === 'harness' || p === 'nemesis') return { kind: p };
  return p >= WATCHDOG_PROCESS_OFFSET
    ? { kind: 'watchdog', of: p - WATCHDOG_PROCESS_OFFSET }
    : { kind: 'client', process: p };
}

/** The process id of client process `p`'s watchdog. */
export function watchdogProcess(p: number): number {
  return WATCHDOG_PROCESS_OFFSET + p;
}

/** The client process an op belongs to: itself, or the client a watchdog renews for; null for harness and nemesis. */
export function clientProcessOf(p: ProcessId): number | null {
  const role = processRole(p);
  return role.kind === 'client' ? role.process : role.kind === 'watchdog' ? role.of : null;
}
