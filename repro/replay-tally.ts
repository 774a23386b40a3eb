import {
  describeSignature,
  failureSignature,
  sameSignature,
  shotIndex,
  type FailureSignature,
  type ShotIndex,
} from '../checkers/failure-signature.ts';
import type { RunResults, Valid } from '../checkers/run-results.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { readResults, readRunHistory, readTestRaw } from '../store/run-dir.ts';
import type { ScenarioRecord } from '../store/test-json.ts';
import { describeAnomaly } from './extract-scenario.ts';
import { rateText, wilson, type RateInterval } from './wilson.ts';

/** One replayed run, as the tally counts it. */
export interface ReplayRun {
  runDir: string;
  verdict: Valid;
  /** It followed its script: every step done or held. Else it is evidence neither way (diverged). */
  followed: boolean;
  diverged: string | null;
  signature: FailureSignature | null;
  /** Followed, and failed with the expected signature (any failure when none is expected). */
  reproduced: boolean;
  staleWritesRejected: number;
  /** The failure in the scenario's names: `write #3 by p0 (A) erased by write #2 by p1 (B)`. */
  description: string | null;
  line: string;
}

/** A replayed run's folder, judged: followed or not, its failure's signature, whether it is the one expected. */
export function judgeReplayRun(
  runDir: string,
  input: { expect: FailureSignature | null; scenario: { clients: string[] } },
): ReplayRun {
  const results = readResults(runDir) as RunResults;
  const test = readTestRaw(runDir) as { scenario?: ScenarioRecord } | undefined;
  const record = test?.scenario;
  const followed = record?.followed === true;
  let holders: ShotIndex | undefined;
  try {
    holders = shotIndex(readRunHistory(runDir).history.ops);
  } catch {
    holders = undefined;
  }
  const signature = results.checkers ? failureSignature(results, holders) : null;
  const reproduced =
    followed && signature !== null && (input.expect === null || sameSignature(signature, input.expect));
  const clients = input.scenario.clients;
  const processes = [
    ...(results.lostUpdateDetails ?? []).flatMap((l) => [l.lost.process, l.overwrittenBy.process]),
    ...(results.overlapDetails ?? []).flatMap((o) => [o.a.process, o.b.process]),
  ];
  const names = new Map(processes.map((p) => [p, clients[p % clients.length]]));
  const description = signature ? describeAnomaly(results, names) : null;
  const diverged = record?.diverged
    ? `step ${record.diverged.step} "${record.diverged.text}": ${record.diverged.why}`
    : record
      ? null
      : 'no scenario record in test.json';
  const line = !followed
    ? `could not follow its script (${diverged})${signature ? `; it failed anyway: ${describeSignature(signature)}` : ''}`
    : reproduced
      ? `${verdictWord(results.valid)}, reproduced: ${description}`
      : signature
        ? `${verdictWord(results.valid)}, a different failure: ${describeSignature(signature)} — ${description}`
        : `${verdictWord(results.valid)}: no failure (stale writes rejected: ${results.staleWritesRejected ?? 0})`;
  return {
    runDir,
    verdict: results.valid ?? 'unknown',
    followed,
    diverged,
    signature,
    reproduced,
    staleWritesRejected: results.staleWritesRejected ?? 0,
    description,
    line,
  };
}

/** The replay's summary: the rate over the runs that followed their script, the others counted apart. Pure. */
export function replaySummary(
  input: { name: string; file: string; expect: FailureSignature | null; original: string | null },
  base: { lock: string; fencing: boolean; seed: number },
  runs: readonly ReplayRun[],
): { text: string; rate: RateInterval; json: Record<string, unknown> } {
  const followed = runs.filter((r) => r.followed);
  const reproduced = followed.filter((r) => r.reproduced);
  const differently = followed.filter((r) => !r.reproduced && r.signature !== null);
  const passed = followed.filter((r) => r.signature === null);
  const rate = wilson(reproduced.length, followed.length);
  const example = reproduced[0]?.description ?? input.original;
  const rejected = followed.filter((r) => r.staleWritesRejected > 0).length;
  const text = [
    '',
    `  replay ${input.name}: ${runs.length} runs with --lock=${base.lock}${base.fencing ? ' --fencing' : ''} (seed ${base.seed})`,
    `  ${rateText(rate)}${example && reproduced.length ? `: ${example}` : ''}`,
    `  counts as reproduced: ${input.expect ? describeSignature(input.expect) : 'any failure (the scenario names none)'}${input.original ? `; originally ${input.original}` : ''}`,
    `  followed its script: ${followed.length}   could not (not evidence either way): ${runs.length - followed.length}   failed differently: ${differently.length}   no failure: ${passed.length}`,
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
