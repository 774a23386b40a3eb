import fs from 'node:fs';
import type { Op } from '../../history/op.ts';
import type { NemesisValue } from '../../history/bank.ts';
import { readHistory } from '../../history/reader.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import { runTest, type RunOutcome } from '../../harness/run.ts';
import type { StoredTestJson } from '../../store/test-json.ts';
import { Shutdown } from '../../common/shutdown.ts';
import { processesUnder, testResultsDir, type OurProcess } from '../integration/processes.ts';
import { requireServersTier } from './servers-tier.ts';

/** What the nemesis integration tests look at after one real run. */
export interface NemesisRun {
  outcome: RunOutcome;
  /** The run's test.json (read before the run folder is removed). */
  test: StoredTestJson;
  /** The harness's log lines (progress, nemesis start/end, summary). */
  log: string[];
  /** The whole history (read before the run's folder is removed). */
  ops: Op[];
  /** Nemesis records from the run's history. */
  faults: Op<NemesisValue>[];
  /** Processes of this run still alive after runTest returned (must be none). */
  leftovers: OurProcess[];
  /** The summary line a user sees, for failure messages. */
  summary: string;
}

/**
 * One run through the same path as the CLI (resolveConfig → runTest), results under the repo's test-output/
 * (Postgres's user must be able to enter it), no signal handlers. The folder is removed afterwards unless the
 * run left processes behind (then it is evidence).
 */
export async function runNemesis(argv: string[]): Promise<NemesisRun> {
  requireServersTier('runNemesis');
  const dir = testResultsDir('nemesis');
  const config = resolveConfig([...argv, `--results=${dir}`]);
  const log: string[] = [];
  const outcome = await runTest(config, new Shutdown(), (l) => log.push(l));
  const { ops } = readHistory(`${outcome.runDir}/history.jsonl`);
  const test = JSON.parse(fs.readFileSync(`${outcome.runDir}/test.json`, 'utf8')) as StoredTestJson;
  const faults = (ops as Op[]).filter((o) => o.process === 'nemesis') as Op<NemesisValue>[];
  const leftovers = processesUnder(dir);
  if (!leftovers.length) fs.rmSync(dir, { recursive: true, force: true });
  const r = outcome.results;
  const summary = `${argv.join(' ')} → valid ${String(r.valid)}, lostUpdates ${r.lostUpdates}, staleWritesRejected ${r.staleWritesRejected}, faults ${r.faults.length}\n${log.filter((l) => l.includes('nemesis')).join('\n')}`;
  return { outcome, test, log, ops: ops as Op[], faults, leftovers, summary };
}

/** Fault starts in a run's history. */
export function starts(run: Pick<NemesisRun, 'faults'>, f?: string): Op<NemesisValue>[] {
  return run.faults.filter((o) => o.value.phase === 'start' && (f === undefined || o.f === f));
}
