import type { LostUpdate, RunResults } from '../checkers/run-results.ts';
import { describeTokenViolation } from '../checkers/token-order.ts';
import { livenessLines } from '../checkers/liveness.ts';
import { brokenPromises, promiseLine } from '../checkers/promise/check-promise.ts';
import { checkerWord, NOT_APPLICABLE, verdictWord } from '../checkers/verdict.ts';
import { lostUpdateTallyText } from '../checkers/lost-update-faults.ts';
import { furthestShot, type FaultHitCount } from '../checkers/fault-hits.ts';
import { faultFacts } from '../faults/catalogue.ts';
import { rerunLine, reproLine } from '../store/rerun-line.ts';
import { runPath } from '../store/run-dir.ts';
import { shownPath } from '../common/shown-path.ts';
import { lockFinding } from '../locks/lock-finding.ts';
import { nextStep, nextStepWords } from '../report/next-step.ts';
import { paintVerdict } from './verdict-colour.ts';
import { runRateAgainstAssumption } from '../locks/run-clock-assumption.ts';
import type { Config } from './run-argv.ts';

/** How a summary is written: its verdict word in colour only for a terminal (verdict-colour.ts decides). */
export interface SummaryStyle {
  readonly colour?: boolean;
}

/**
 * The console's closing summary of a run's results, in the two shapes docs/reading-results.md shows: after a run (`runSummary`:
 * the verdict and why, the counters, every checker and fault, the run dir, report and replay line) and after
 * `check <run-dir>` re-checked a stored one (`recheckSummary`: the verdict with the dir, the counters, each
 * checker). The words come from checkers/verdict.ts.
 */
export function runSummary(
  config: Readonly<Config>,
  runDir: string,
  r: RunResults,
  faults: readonly string[],
  { colour = false }: SummaryStyle = {},
): string {
  const verdict = paintVerdict(verdictWord(r.valid), colour);
  const q = r.latency.acquire;
  const head = `--lock=${config.lock}${config.fencing ? ' --fencing' : ''}  seed ${config.seed}`;
  // An unknown verdict leads with why: "UNKNOWN  no progress: 0 writes committed; 14 acquires timed out".
  const [why, ...moreWhy] = r.unknownReasons;
  const lines = [
    '',
    ...(why !== undefined && r.valid === 'unknown'
      ? [`  ${verdict}  ${why}`, ...moreWhy.map((w) => `  also: ${w}`), `  ${head}`]
      : [`  ${verdict}  ${head}`]),
    `  what to do: ${nextStepLine(config, r, faults)}`,
    `  ops: ${r.opCounts.total} (${r.opCounts.ok} ok, ${r.opCounts.fail} fail, ${r.opCounts.info} info), ${r.throughput.toFixed(1)} ok/s over ${(r.durationMs / 1000).toFixed(1)} s`,
    `  lost updates: ${r.lostUpdates}${byFault(r)}   stale writes rejected: ${r.staleWritesRejected}   overlaps: ${r.overlaps} (${r.confirmedOverlaps} confirmed)   faults: ${r.faults.length}`,
    ...clockLines(config, faults),
    `  acquire latency ms: p50 ${q.p50.toFixed(2)}  p99 ${q.p99.toFixed(2)}  max ${q.max.toFixed(2)}`,
    ...livenessLines(r.liveness ?? undefined),
    ...promiseLines(r),
    ...libraryCrashLines(r),
  ];
  lines.push(...checkerLines(r));
  // Every fault of the run, the ones that never fired too: each must have acted for the verdict to be VALID.
  const hits = r.faultHits ?? {};
  for (const f of new Set([...faults, ...Object.keys(hits)])) lines.push(...faultLines(f, hits[f]));
  for (const l of r.lostUpdateDetails.slice(0, SHOWN)) lines.push(`  lost: ${describeLostUpdate(l)}`);
  lines.push(...andMore(r.lostUpdateDetails.length, 'lost updates'));
  const violations = r.checkers['token-order']?.violations ?? [];
  for (const v of violations.slice(0, SHOWN)) lines.push(`  token: ${describeTokenViolation(v)}`);
  lines.push(...andMore(violations.length, 'token violations'));
  lines.push(
    // Relative when under the working directory (results/redlock/…), as the user typed --results.
    `  run dir: ${shownPath(runDir)}`,
    `  report:  ${shownPath(runPath(runDir, 'report'))}`,
    `  replay:  ${rerunLine(config)}`,
    // A failure becomes a reproduction: a bundle with its scripted story, replayable from any folder.
    ...(r.valid === false ? [`  reproduce: ${reproLine(shownPath(runDir))}`] : []),
    '',
  );
  return lines.join('\n');
}

/** The run's "what to do" line and where its lock's story is (report/next-step.ts), as the summary and --json give it. */
export function nextStepLine(config: Readonly<Config>, r: RunResults, faults: readonly string[]): string {
  return nextStepWords(nextStep(r, lockFinding(config.lock), { fencing: config.fencing, faults }));
}

/** The run's clock rate against its lock's stated clock assumption (locks/clock-assumption.ts), when it has both. */
function clockLines(config: Readonly<Config>, faults: readonly string[]): string[] {
  const line = runRateAgainstAssumption(config.lock, config.clockRate, faults);
  return line ? [`  clock: ${line}`] : [];
}

/** The promise checker's tally, then each broken promise (the reason for an INVALID it gives), as many as SHOWN. */
function promiseLines(r: Pick<RunResults, 'checkers'>): string[] {
  const line = promiseLine(r.checkers.promise);
  const broken = brokenPromises(r.checkers.promise);
  return [
    ...(line ? [`  ${line}`] : []),
    ...broken.slice(0, SHOWN).map((why) => `  broken: ${why}`),
    ...andMore(broken.length, 'broken promises'),
  ];
}

/** The client processes the lock library ended on purpose (LockStrategy.libraryCrash), by error: its behaviour, named. */
export function libraryCrashLines(r: Pick<RunResults, 'progress'>): string[] {
  const crashes = Object.entries(r.progress?.libraryCrashes ?? {});
  if (crashes.length === 0) return [];
  const list = crashes.map(([error, n]) => `${error} ×${n}`).join(', ');
  return [`  the lock library ended its client process: ${list} (its own behaviour; each client was restarted)`];
}

/**
 * A fault's line: fired and hit; for a fault that tells a story (its catalogue row's `story`), how many stories
 * completed, and the first completed one step by step — or, when none did, the shot that got furthest.
 */
function faultLines(f: string, c: FaultHitCount | undefined): string[] {
  const fired = c?.fired ?? 0;
  if (!faultFacts(f)?.story) return [`  fault ${f}: fired ${fired}, hit ${c?.hit ?? 0}`];
  const hit = c?.hit ?? 0;
  const lines = [`  fault ${f}: fired ${fired}, ${hit} whole ${hit === 1 ? 'story' : 'stories'}`];
  const story = c?.shots.find((s) => s.hit);
  if (story) lines.push(`    #${story.index}: ${story.evidence}`);
  else if (c?.shots.length) {
    const furthest = furthestShot(c.shots)!;
    lines.push(`    #${furthest.index}, the furthest: ${furthest.evidence}`);
  }
  return lines;
}

/** What `check <run-dir>` knows of the run from its record: its lock and faults, for the "what to do" line. */
export interface RecheckStyle extends SummaryStyle {
  readonly run?: { readonly lock: string; readonly faults: readonly string[] };
}

export function recheckSummary(
  dir: string,
  r: RunResults,
  fencing: boolean,
  { colour = false, run }: RecheckStyle = {},
): string {
  const step = run && nextStep(r, lockFinding(run.lock), { fencing, faults: run.faults });
  const lines = [
    `${paintVerdict(verdictWord(r.valid), colour)}: ${dir}${fencing ? ' (fenced)' : ''}${r.valid === 'unknown' && r.unknownReasons.length > 0 ? `: ${r.unknownReasons[0]}` : ''}`,
    ...(r.valid === 'unknown' ? r.unknownReasons.slice(1).map((w) => `  also: ${w}`) : []),
    ...(step ? [`  what to do: ${nextStepWords(step)}`] : []),
    `  lost updates: ${r.lostUpdates}${byFault(r)}   overlaps: ${r.overlaps} (${r.confirmedOverlaps} confirmed)   stale writes rejected: ${r.staleWritesRejected}`,
    `  ops: ${r.opCounts.total} (${r.opCounts.ok} ok, ${r.opCounts.fail} fail, ${r.opCounts.info} info) over ${(r.durationMs / 1000).toFixed(1)} s, ${r.throughput.toFixed(1)} ok/s; faults: ${r.faults.length}`,
    ...livenessLines(r.liveness ?? undefined),
    ...promiseLines(r),
  ];
  lines.push(...checkerLines(r));
  const cx = r.checkers.linearizable?.counterexample;
  if (cx) lines.push(`  ${cx.message}`);
  lines.push(`  wrote ${runPath(dir, 'results')}`);
  return lines.join('\n');
}

/** Lost updates and token violations printed one a line; the rest are counted ("… and 5 more") and in the report. */
const SHOWN = 3;

function andMore(total: number, what: string): string[] {
  return total > SHOWN ? [`  … and ${total - SHOWN} more ${what} (the report lists every one)`] : [];
}

/** " (restart-empty 2 · clock 3 · pause-holder 3)": the faults the lost updates happened under, most first. */
function byFault(r: RunResults): string {
  const text = lostUpdateTallyText(r.lostUpdatesByFault);
  return r.lostUpdates && text ? ` (${text})` : '';
}

export function describeLostUpdate(l: LostUpdate): string {
  const under =
    l.faults === undefined ? '' : l.faults.length ? ` — under ${l.faults.join(', ')}` : ' — no fault active';
  return `write #${l.lost.writeId} by p${l.lost.process} (${l.lost.from}→${l.lost.to}) erased by write #${l.overwrittenBy.writeId} by p${l.overwrittenBy.process}, which read the balance after #${l.overwrittenBy.basedOn}${under}`;
}

/**
 * One line per checker: VALID / INVALID / UNKNOWN as the run's verdict is spelled, n/a where it does not apply (it
 * said `true` there, which read as "fencing worked" in an unfenced run), and which ones do not decide the verdict.
 */
function checkerLines(r: RunResults): string[] {
  return Object.entries(r.checkers).map(([name, c]) => {
    const word = checkerWord(c);
    const why = c.error
      ? ` (${c.error})`
      : word === 'n/a' && typeof c.note === 'string'
        ? ` (${c.note.slice(NOT_APPLICABLE.length)})`
        : c.cause === 'timeout'
          ? ' (deadline reached)'
          : c.cause === 'memory'
            ? ' (memo cache full)'
            : '';
    const informational = c.decides === false && word !== 'n/a' ? ', informational: does not decide the verdict' : '';
    return `  checker ${name.padEnd(19)} ${word}${why}${informational}`;
  });
}
