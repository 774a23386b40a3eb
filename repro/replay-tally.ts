import {
  describeSignature,
  failureSignature,
  shotIndex,
  type FailureSignature,
  type ShotIndex,
} from '../checkers/failure-signature.ts';
import type { RunResults, Valid } from '../checkers/run-results.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { readResults, readRunHistory, readTestRaw } from '../store/run-dir.ts';
import type { ScenarioRecord } from '../store/test-json.ts';
import { describeAnomaly } from './extract-scenario.ts';
import {
  CLEAN,
  describeExpect,
  expectedSignature,
  describeShows,
  isLostReplyExpect,
  lostReplyFindings,
  meetsExpect,
  showsAnything,
  type LostReplyAnomaly,
  type ReplayExpect,
  type RunShows,
} from '../scenario/scenario-expect.ts';
import { rateText, wilson, type RateInterval } from './wilson.ts';

/** One replayed run, as the tally counts it. */
export interface ReplayRun {
  runDir: string;
  verdict: Valid;
  /** It followed its script: every step done or held. Else it is evidence neither way (diverged). */
  followed: boolean;
  diverged: string | null;
  signature: FailureSignature | null;
  /** The lost-replies checker's kinds of finding in the run (informational: the verdict may be VALID). */
  findings: LostReplyAnomaly[];
  /** Followed, and showed what is expected (replay-expect.ts): the signature, the finding, or nothing (`clean`). */
  reproduced: boolean;
  /** Followed, not reproduced, and showed something the expectation weighs: a failure or a finding, said. */
  differently: boolean;
  /** The checker's sentence of the expected lost-replies finding, when one was expected and found. */
  said: string | null;
  staleWritesRejected: number;
  /** The failure in the scenario's names: `write #3 by p0 (A) erased by write #2 by p1 (B)`. */
  description: string | null;
  line: string;
}

/** A replayed run's folder, judged: followed or not, its failure's signature, whether it is the one expected. */
export function judgeReplayRun(
  runDir: string,
  input: { expect: ReplayExpect | null; scenario: { clients: string[]; faults?: readonly string[] } },
): ReplayRun {
  const results = readResults(runDir) as RunResults;
  const test = readTestRaw(runDir) as { scenario?: ScenarioRecord } | undefined;
  let holders: ShotIndex | undefined;
  try {
    holders = shotIndex(readRunHistory(runDir).history.ops);
  } catch {
    holders = undefined;
  }
  return judgeRun(runDir, results, test?.scenario, holders, input);
}

/** judgeReplayRun on what it read: the run's results, its scenario record and its shot index. Pure. */
export function judgeRun(
  runDir: string,
  results: RunResults,
  record: ScenarioRecord | undefined,
  holders: ShotIndex | undefined,
  input: { expect: ReplayExpect | null; scenario: { clients: string[]; faults?: readonly string[] } },
): ReplayRun {
  const followed = record?.followed === true;
  const signature = results.checkers ? failureSignature(results, holders) : null;
  const shows = { signature, findings: lostReplyFindings(results) };
  // A clean run is evidence only when the faults it scripts struck: a drop that never came shows no recovery.
  const missed =
    input.expect === CLEAN ? (input.scenario.faults ?? []).filter((f) => !(results.faultHits?.[f]?.hit > 0)) : [];
  const reproduced = followed && meetsExpect(input.expect, shows) && !missed.length;
  const differently = followed && !reproduced && showsAnything(input.expect, shows);
  const clients = input.scenario.clients;
  const processes = [
    ...(results.lostUpdateDetails ?? []).flatMap((l) => [l.lost.process, l.overwrittenBy.process]),
    ...(results.overlapDetails ?? []).flatMap((o) => [o.a.process, o.b.process]),
  ];
  const names = new Map(processes.map((p) => [p, clients[p % clients.length]]));
  const description = signature ? describeAnomaly(results, names) : null;
  // The sentence of the first finding of the expected kind: what the checker said of it.
  const said = isLostReplyExpect(input.expect) ? findingText(results, input.expect.anomaly) : null;
  const diverged = record?.diverged
    ? `step ${record.diverged.step} "${record.diverged.text}": ${record.diverged.why}`
    : record
      ? null
      : 'no scenario record in test.json';
  return {
    runDir,
    verdict: results.valid ?? 'unknown',
    followed,
    diverged,
    signature,
    findings: shows.findings,
    reproduced,
    differently,
    said,
    staleWritesRejected: results.staleWritesRejected ?? 0,
    description,
    line: missed.length
      ? `${verdictWord(results.valid)}: nothing found, but ${missed.join(', ')} never hit: no evidence of a recovery`
      : runLine(results, { followed, reproduced, differently, diverged, description, said }, input.expect, shows),
  };
}

/** The run's one line: what it followed, and what it showed against what was expected. */
function runLine(
  results: RunResults,
  run: Pick<ReplayRun, 'followed' | 'reproduced' | 'differently' | 'diverged' | 'description' | 'said'>,
  expect: ReplayExpect | null,
  shows: RunShows,
): string {
  const { signature } = shows;
  const verdict = verdictWord(results.valid);
  if (!run.followed)
    return `could not follow its script (${run.diverged})${signature ? `; it failed anyway: ${describeSignature(signature)}` : ''}`;
  const said = run.said;
  if (run.reproduced) {
    if (expect === CLEAN) return `${verdict}, reproduced: ${describeShows(shows)}`;
    const also = said && signature ? `; it also failed: ${describeSignature(signature)} — ${run.description}` : '';
    return `${verdict}, reproduced: ${said ?? run.description}${also}`;
  }
  if (run.differently)
    return `${verdict}, a different ${signature ? 'failure' : 'finding'}: ${describeShows(shows)}${run.description ? ` — ${run.description}` : ''}`;
  const nothing = isLostReplyExpect(expect) ? 'no failure and no lost-replies finding' : 'no failure';
  return `${verdict}: ${nothing} (stale writes rejected: ${results.staleWritesRejected ?? 0})`;
}

/** The checker's sentence for the first finding of `anomaly` in the run, or null. */
function findingText(results: RunResults, anomaly: LostReplyAnomaly): string | null {
  const r = results.checkers?.['lost-replies'];
  const list = {
    'orphaned-lock': r?.orphans,
    'never-released': r?.neverReleased,
    'released-another': r?.releasedAnother,
    'double-ownership': r?.doubleOwnership,
  }[anomaly];
  return list?.[0]?.text ?? null;
}

/** The replay's summary: the rate over the runs that followed their script, the others counted apart. Pure. */
export function replaySummary(
  input: { name: string; file: string; expect: ReplayExpect | null; original: string | null },
  base: { lock: string; fencing: boolean; seed: number },
  runs: readonly ReplayRun[],
): { text: string; rate: RateInterval; json: Record<string, unknown> } {
  const followed = runs.filter((r) => r.followed);
  const reproduced = followed.filter((r) => r.reproduced);
  const differently = followed.filter((r) => r.differently);
  const passed = followed.filter((r) => !r.reproduced && !r.differently);
  const rate = wilson(reproduced.length, followed.length);
  const example = reproduced[0]?.said ?? reproduced[0]?.description ?? input.original;
  const signature = expectedSignature(input.expect) !== null || input.expect === null;
  const verb = signature ? 'fails' : input.expect === CLEAN ? 'clean' : 'shows it';
  const rejected = followed.filter((r) => r.staleWritesRejected > 0).length;
  const text = [
    '',
    `  replay ${input.name}: ${runs.length} runs with --lock=${base.lock}${base.fencing ? ' --fencing' : ''} (seed ${base.seed})`,
    `  ${rateText(rate, verb)}${example && reproduced.length && input.expect !== CLEAN ? `: ${example}` : ''}`,
    `  counts as reproduced: ${input.expect ? describeExpect(input.expect) : 'any failure (the scenario names none)'}${input.original ? `; originally ${input.original}` : ''}`,
    `  followed its script: ${followed.length}   could not (not evidence either way): ${runs.length - followed.length}   ${signature ? 'failed differently' : 'showed something else'}: ${differently.length}   ${signature ? 'no failure' : 'showed nothing'}: ${passed.length}`,
    `  stale writes rejected in ${rejected} of ${followed.length} followed runs`,
    ...runs
      .filter((r) => !r.followed)
      .slice(0, 3)
      .map((r) => `  diverged: ${r.diverged}`),
    ...differently.slice(0, 3).map((r) => `  differently: ${r.line}`),
  ].join('\n');
  return {
    text,
    rate,
    json: {
      scenario: input.name,
      file: input.file,
      lock: base.lock,
      fencing: base.fencing,
      seed: base.seed,
      expect: input.expect,
      rate,
      followed: followed.length,
      reproduced: reproduced.length,
      diverged: runs.length - followed.length,
      differently: differently.length,
      passed: passed.length,
      runs,
    },
  };
}
