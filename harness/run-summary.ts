import type { RunResults } from '../checkers/run-results.ts';
import { describeTokenViolation } from '../checkers/token-order.ts';
import { livenessLines } from '../checkers/liveness.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { furthestShot, type FaultHitCount } from '../checkers/fault-hits.ts';
import { faultFacts } from '../history/fault-catalogue.ts';
import { replayCommand, reproCommand } from '../store/replay-command.ts';
import { runPath } from '../store/run-dir.ts';
import type { Config } from './options.ts';

/**
 * The console's closing summary of a run's results, in the two shapes the README shows: after a run (`runSummary`:
 * the verdict and why, the counters, every checker and fault, the run dir, report and replay line) and after
 * `check <run-dir>` re-checked a stored one (`recheckSummary`: the verdict with the dir, the counters, each
 * checker). The words come from checkers/verdict.ts.
 */
export function runSummary(config: Readonly<Config>, runDir: string, r: RunResults, faults: readonly string[]): string {
  const verdict = verdictWord(r.valid);
  const q = r.latency.acquire;
  const head = `--lock=${config.lock}${config.fencing ? ' --fencing' : ''}  seed ${config.seed}`;
  // An unknown verdict leads with why: "UNKNOWN  no progress: 0 writes committed; 14 acquires timed out".
  const [why, ...moreWhy] = r.unknownReasons;
  const lines = [
    '',
    ...(why !== undefined && r.valid === 'unknown'
      ? [`  ${verdict}  ${why}`, ...moreWhy.map((w) => `  also: ${w}`), `  ${head}`]
      : [`  ${verdict}  ${head}`]),
    `  ops: ${r.opCounts.total} (${r.opCounts.ok} ok, ${r.opCounts.fail} fail, ${r.opCounts.info} info), ${r.throughput.toFixed(1)} ok/s over ${(r.durationMs / 1000).toFixed(1)} s`,
    `  lost updates: ${r.lostUpdates}   stale writes rejected: ${r.staleWritesRejected}   overlaps: ${r.overlaps} (${r.confirmedOverlaps} confirmed)   faults: ${r.faults.length}`,
    `  acquire latency ms: p50 ${q.p50.toFixed(2)}  p99 ${q.p99.toFixed(2)}  max ${q.max.toFixed(2)}`,
    ...livenessLines(r.liveness ?? undefined),
  ];
  for (const [name, c] of Object.entries(r.checkers))
    lines.push(`  checker ${name}: ${String(c.valid)}${c.error ? ` (${c.error})` : ''}`);
  // Every fault of the run, the ones that never fired too: each must have acted for the verdict to be VALID.
  const hits = r.faultHits ?? {};
  for (const f of new Set([...faults, ...Object.keys(hits)])) lines.push(...faultLines(f, hits[f]));
  for (const l of r.lostUpdateDetails.slice(0, 3)) {
    lines.push(
      `  lost: write #${l.lost.writeId} by p${l.lost.process} (${l.lost.from}→${l.lost.to}) erased by write #${l.overwrittenBy.writeId} by p${l.overwrittenBy.process} based on #${l.overwrittenBy.basedOn}`,
    );
  }
  for (const v of r.checkers['token-order']?.violations?.slice(0, 3) ?? [])
    lines.push(`  token: ${describeTokenViolation(v)}`);
  lines.push(
    `  run dir: ${runDir}`,
    `  report:  ${runPath(runDir, 'report')}`,
    `  replay:  ${replayCommand(config)}`,
    // A failure becomes a reproduction: a bundle with its scripted story, replayable from any folder.
    ...(r.valid === false ? [`  reproduce: ${reproCommand(runDir)}`] : []),
    '',
  );
  return lines.join('\n');
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

export function recheckSummary(dir: string, r: RunResults, fencing: boolean): string {
  const lines = [
    `${verdictWord(r.valid)}: ${dir}${fencing ? ' (fenced)' : ''}${r.valid === 'unknown' && r.unknownReasons.length > 0 ? `: ${r.unknownReasons[0]}` : ''}`,
    ...(r.valid === 'unknown' ? r.unknownReasons.slice(1).map((w) => `  also: ${w}`) : []),
    `  lost updates: ${r.lostUpdates}   overlaps: ${r.overlaps} (${r.confirmedOverlaps} confirmed)   stale writes rejected: ${r.staleWritesRejected}`,
    `  ops: ${r.opCounts.total} (${r.opCounts.ok} ok, ${r.opCounts.fail} fail, ${r.opCounts.info} info) over ${(r.durationMs / 1000).toFixed(1)} s, ${r.throughput.toFixed(1)} ok/s; faults: ${r.faults.length}`,
    ...livenessLines(r.liveness ?? undefined),
  ];
  for (const [name, c] of Object.entries(r.checkers)) {
    const why = c.error
      ? ` (${c.error})`
      : c.cause === 'timeout'
        ? ' (deadline reached)'
        : c.cause === 'memory'
          ? ' (memo cache full)'
          : '';
    lines.push(`  ${name.padEnd(20)} ${verdictWord(c.valid)}${why}`);
  }
  const cx = r.checkers.linearizable?.counterexample;
  if (cx) lines.push(`  ${cx.message}`);
  lines.push(`  wrote ${runPath(dir, 'results')}`);
  return lines.join('\n');
}
