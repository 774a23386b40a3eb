import { setTimeout as sleep } from 'node:timers/promises';
import { processState } from '../common/pid-registry.ts';
import type { ClientProcess } from './nemesis.ts';

/** A client as a fault's record names it: its process id and pid, and its lock process when it has one. */
export function clientTarget(c: Pick<ClientProcess, 'process' | 'pid' | 'lockProcess'>, pid = c.pid): string {
  const lock = c.lockProcess ? `, lock process pid ${c.lockProcess.pid}: ${c.lockProcess.command}` : '';
  return `client p${c.process} (pid ${pid}${lock})`;
}

/**
 * The evidence that a pause reached a client's lock process (a lock in another language): /proc says it is
 * stopped (`T`) within `budgetMs` of the SIGSTOP — the signal is delivered asynchronously. Undefined when the client
 * has no lock process.
 */
export async function lockProcessStopped(lockPid: number | undefined, budgetMs = 200): Promise<boolean | undefined> {
  if (!lockPid) return undefined;
  const until = performance.now() + budgetMs;
  for (;;) {
    if (processState(lockPid) === 'T') return true;
    if (performance.now() >= until) return false;
    await sleep(5);
  }
}
