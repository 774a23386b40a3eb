import path from 'node:path';
import type { Op } from '../../history/op.ts';
import { readHistory } from '../../history/reader.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import type { RunDriver } from '../../harness/run-driver.ts';
import { runTest, type RunOutcome } from '../../harness/run.ts';
import { Shutdown } from '../../common/shutdown.ts';
import { createNemesis } from '../../nemesis/create-nemesis.ts';
import { eventually } from './eventually.ts';
import { requireServersTier } from './servers-tier.ts';

/** A free run ended at a state of its history: its outcome, whether the state came, what it logged, its history. */
export interface FreeRunUntil {
  outcome: RunOutcome;
  /** Null when the state came; else why not (the bound passed), for the failing assertion's message. */
  missed: string | null;
  log: string[];
  ops: Op[];
}

/**
 * A free run — the clients' own loop and the fault schedule, as without a scenario — that ends once `reached` holds
 * of its history so far, rather than after a time limit: a test of what a run records of something the clients do
 * now and then (a library ending its process) waits for that to have happened enough times, not for a time limit
 * long enough that it probably has. Only the end differs from a run of the CLI's (runTest, the checkers, the report);
 * `--time-limit` is not read. Past `boundMs` without the state the run ends anyway, and `missed` says so.
 */
export async function freeRunUntil(
  argv: readonly string[],
  what: string,
  reached: (ops: readonly Op[]) => boolean,
  boundMs: number,
): Promise<FreeRunUntil> {
  requireServersTier('freeRunUntil');
  let missed: string | null = null;
  const driver: RunDriver = {
    specs: (specs) => specs,
    nemesis: (env) => createNemesis(env),
    async drive({ journal, nemesis }) {
      const seen: Op[] = [];
      const unsubscribe = journal.onOp((op) => void seen.push(op));
      const abort = new AbortController();
      const faults = nemesis.run(abort.signal);
      try {
        await eventually(what, () => reached(seen), boundMs);
      } catch (err) {
        missed = (err as Error).message;
      } finally {
        unsubscribe();
        abort.abort();
        await faults;
      }
      return {};
    },
  };
  const log: string[] = [];
  const outcome = await runTest(resolveConfig(argv), new Shutdown(), (l) => log.push(l), driver);
  const { ops } = readHistory(path.join(outcome.runDir, 'history.jsonl'));
  return { outcome, missed, log, ops: ops as Op[] };
}
