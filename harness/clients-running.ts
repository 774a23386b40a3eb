import type { Journal } from '../history/journal.ts';
import { processRole } from '../history/process-role.ts';

/** The longest a run waits for its clients to begin their loops before its time limit starts anyway. */
export const CLIENTS_RUNNING_MAX_MS = 30_000;

/**
 * Resolves once every client slot has put an op in the journal — it connected to its lock and began its loop — or
 * when `giveUp` settles first, or after `maxMs`; with the slots still silent then. The time limit and the fault
 * schedule start from here: a client whose lock runs in a JVM or a Python process can take seconds to start on a busy
 * machine (Curator, under the nightly's load: 5 of 10 s), and a 10 s run whose faults had 4 s of clients to act on
 * had no time for a story (a paused holder's needs the TTL and another client's write after the stop).
 */
export async function clientsRunning(
  journal: Journal,
  concurrency: number,
  giveUp: Promise<unknown>,
  maxMs = CLIENTS_RUNNING_MAX_MS,
): Promise<{ waitedMs: number; silent: number[] }> {
  const t0 = performance.now();
  const silent = new Set(Array.from({ length: concurrency }, (_, slot) => slot));
  let unsubscribe = () => {};
  const all = new Promise<void>((resolve) => {
    unsubscribe = journal.onOp((op) => {
      if (typeof op.process !== 'number' || processRole(op.process).kind !== 'client') return;
      silent.delete(op.process % concurrency);
      if (silent.size === 0) resolve();
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
  await Promise.race([all, giveUp, late]);
  clearTimeout(timer);
  unsubscribe();
  return { waitedMs: Math.round(performance.now() - t0), silent: [...silent] };
}
