import fs from 'node:fs';
import path from 'node:path';
import type { Op } from '../../history/op.ts';
import type { NemesisValue } from '../../history/bank.ts';
import { readHistory } from '../../history/reader.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import type { RunOutcome } from '../../harness/run.ts';
import { Shutdown } from '../../common/shutdown.ts';
import type { ScenarioRecord } from '../../store/test-json.ts';
import { runScenario } from '../../scenario/scenario-command.ts';
import { scenarioFromJson } from '../../scenario/scenario-file.ts';
import { processesUnder, testResultsDir } from '../integration/processes.ts';
import { requireServersTier } from './servers-tier.ts';

/** A scripted run's outcome, its scenario record (each step's status), its history and what it left running. */
export interface ScriptedRun {
  outcome: RunOutcome;
  record: ScenarioRecord;
  ops: Op[];
  /** Nemesis records from the run's history (the scripted strikes and heals). */
  faults: Op<NemesisValue>[];
  log: string[];
  leftovers: ReturnType<typeof processesUnder>;
  /** Each step's status and evidence, then the unknown reasons: a failing assertion's message. */
  summary: string;
}

/** A scenario: a shipped one by name (`scenarios/<name>.json`), a file by its path, or steps written in the test. */
export type Script =
  | { shipped: string }
  | { file: string }
  | { name: string; steps: string[]; options?: Record<string, unknown> };

const SHIPPED = path.resolve('scenarios');

/** How a scripted run is placed. */
export interface ScriptedRunOptions {
  /**
   * The test's own results folder: the run goes under it and stays there (its run dir, `latest`, `test.json` for the
   * test to read); the test removes it. Without it the run has a folder of its own, removed unless something was left
   * running.
   */
  results?: string;
}

/**
 * One scripted run through the CLI's own path (`--scenario`: runScenario → runTest with the scenario's driver) on real
 * servers: each step starts once the history shows the one before it complete, so the interleaving — and the verdict —
 * is the script's, not the schedule's luck. `argv` adds run options (`--lock=etcd`, `--fencing`); the results folder is
 * the test's own and is removed unless something was left running or the script diverged (`opts.results`: the
 * caller's, kept).
 */
export async function scriptedRun(
  script: Script,
  argv: readonly string[],
  opts: ScriptedRunOptions = {},
): Promise<ScriptedRun> {
  requireServersTier('scriptedRun');
  const label =
    'shipped' in script ? script.shipped : 'file' in script ? path.basename(script.file, '.json') : script.name;
  const dir = opts.results ?? testResultsDir(`scripted-${label}`);
  let file: string;
  let scenario;
  if ('shipped' in script) {
    file = path.join(SHIPPED, `${script.shipped}.json`);
  } else if ('file' in script) {
    file = path.resolve(script.file);
  } else {
    const read = scenarioFromJson({
      fencepost: 'scenario',
      version: 1,
      name: script.name,
      clients: ['A', 'B'],
      options: script.options ?? {},
      steps: script.steps,
    });
    if ('problems' in read) throw new Error(read.problems.join('; '));
    scenario = read.scenario;
    file = path.join(dir, `${script.name}.json`);
  }
  const config = resolveConfig([...argv, `--scenario=${file}`, `--results=${dir}`]);
  const log: string[] = [];
  const outcome = await runScenario(file, config, new Shutdown(), { scenario, log: (l) => log.push(l) });
  const record = (JSON.parse(fs.readFileSync(`${outcome.runDir}/test.json`, 'utf8')) as { scenario: ScenarioRecord })
    .scenario;
  const { ops } = readHistory(`${outcome.runDir}/history.jsonl`);
  const leftovers = processesUnder(dir);
  // A diverged script is kept: its history and log are the only evidence of a flake a soak found once.
  const keep = leftovers.length > 0 || opts.results !== undefined || !record.followed;
  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  // The run's own log says why a fault found nothing to strike (what its probe saw): kept beside the diverged run,
  // and its nemesis lines in the failure's message.
  if (!record.followed) fs.writeFileSync(path.join(outcome.runDir, 'run.log'), log.join('\n') + '\n');
  const summary = [
    ...record.steps.map((s) => `${s.text}: ${s.status} ${s.evidence}`),
    ...outcome.results.unknownReasons,
    ...(record.followed
      ? []
      : [...log.filter((l) => l.includes('nemesis:')), `the diverged run is kept, with its log: ${outcome.runDir}`]),
  ].join('\n');
  const faults = (ops as Op[]).filter((o) => o.process === 'nemesis') as Op<NemesisValue>[];
  return { outcome, record, ops: ops as Op[], faults, log, leftovers, summary };
}
