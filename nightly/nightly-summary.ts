import path from 'node:path';
import { serverChanges, serversLine } from './night-servers.ts';
import { cellStatus, measured, nightExit, type NightlyResult } from './nightly-result.ts';
import { tally, tallyLine } from '../matrix/matrix-tally.ts';
import { fmtDuration, fmtMs } from '../report/format.ts';
import { compareNights, fmtRatio, LATENCY_REGRESSION } from './nightly-comparison.ts';
import { runPath } from '../store/run-dir.ts';
import type { CellPromise } from '../matrix/cell-promise.ts';
import { cellShows } from '../matrix/cell-shows.ts';
import type { PromiseExpect } from '../matrix/promise-expectation.ts';

/**
 * The night in Markdown, for `$GITHUB_STEP_SUMMARY` (the run's page on GitHub) and summary.md in the artifact:
 * the verdict first, then what needs a look (contradicted, inconclusive, changed since the baseline, slower),
 * then every measured cell.
 *
 * Every text that comes from the night — a downloaded artifact, or a baseline from any branch — goes through `md`:
 * a newline would end the table and start a heading of its own, `|` would split a cell, and `[…](…)`, `![…](…)`,
 * `<…>`, `#`, emphasis and code would be a link, a tracking image, HTML or formatting. Each such character is
 * backslash-escaped (CommonMark shows it as itself). A bare URL is still linked by GitHub's autolinks, as text.
 */
export const md = (s: unknown) =>
  String(s ?? '')
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_[\]<#!|]/g, '\\$&');

/** Text inside a code span (a path): only a backtick could end it, and `|` (GFM tables split on it even there). */
const inCode = (s: unknown) =>
  String(s ?? '')
    .replace(/[\r\n]+/g, ' ')
    .replace(/`/g, "'")
    .replace(/\|/g, '\\|');

const VERDICT: Record<number, string> = {
  0: '✅ every measured cell matched its expectation',
  1: '❌ a cell contradicts its expectation',
  2: '⚠️ a cell stayed inconclusive',
};
const NOTHING_MEASURED = '⚠️ no cell was measured: the night decided nothing';

export function renderSummary(result: NightlyResult, reportsFrom: string, baseline?: NightlyResult): string {
  return [
    ...headerLines(result, baseline),
    ...attentionLines(result, reportsFrom),
    ...(baseline ? baselineLines(result, baseline) : []),
    ...everyCellLines(result, reportsFrom),
  ].join('\n');
}

/** The verdict, the tally and the settings; the servers, and whatever makes tonight unlike the baseline's night. */
function headerLines(result: NightlyResult, baseline: NightlyResult | undefined): string[] {
  const code = nightExit(result);
  const out: string[] = [];
  const shard = result.shard ? ` (shard ${result.shard.index}/${result.shard.count})` : '';
  const verdict = result.cells.some(measured) ? VERDICT[code] : NOTHING_MEASURED;
  out.push(`## fencepost nightly${shard}: ${verdict} (exit ${code})`, '');
  out.push(
    `${tallyLine(tally(result.cells))}. Seed ${md(result.seed)}, ${md(result.settings.join(' '))}, wall time ${fmtDuration(result.wallMs)}.`,
    '',
  );
  if (result.servers) out.push(`Servers: ${md(serversLine(result.servers))}.`, '');
  const moved = serverChanges(result.servers, baseline?.servers);
  if (moved.length)
    out.push(
      `**Not the baseline's servers**: ${md(moved.join('; '))}. A changed verdict may be the server's, not the lock's.`,
      '',
    );
  if (result.missingShards)
    out.push(
      `**Shard${result.missingShards.length > 1 ? 's' : ''} ${result.missingShards.join(', ')} left no result**: the measured cells ${result.missingShards.length > 1 ? 'they' : 'it'} held did not run, so this night cannot pass.`,
      '',
    );
  if (result.expectationsFile)
    out.push(`Expectations: the oracle, overridden and extended by \`${inCode(result.expectationsFile)}\`.`, '');
  return out;
}

/** The cells that contradicted their expectation or stayed inconclusive, each with its report. */
function attentionLines(result: NightlyResult, reportsFrom: string): string[] {
  const attention = result.cells.filter((c) => ['contradicted', 'inconclusive'].includes(cellStatus(c)));
  if (!attention.length) return [];
  const out = [
    '### Needs a look',
    '',
    '| cell | expected (from) | observed | finding | report |',
    '|---|---|---|---|---|',
  ];
  for (const c of attention) {
    const report = c.runDir ? `\`${inCode(runPath(path.join(reportsFrom, c.runDir), 'report'))}\`` : '–';
    out.push(
      `| ${md(c.lock)} × ${md(c.column ?? c.fault)} | ${md(c.expected)} (${md(c.from)}) | **${md(c.observed)}** (${cellStatus(c)}) | ${md(c.note ?? `${c.lostUpdates} lost updates`)} | ${report} |`,
    );
  }
  out.push('');
  return out;
}

/** What changed since the baseline night: outcomes, latency flagged slower, locks that ran another build. */
function baselineLines(result: NightlyResult, baseline: NightlyResult): string[] {
  const rows = compareNights(result, baseline);
  const changed = rows.filter((r) => r.verdictChanged);
  const slower = rows.filter((r) => r.latencyRegression);
  const rebuilt = rows.filter((r) => r.lockBuildChange);
  const out: string[] = [`### Since the baseline (seed ${md(baseline.seed)}, ${md(baseline.startedAt)})`, ''];
  out.push(
    `${changed.length} cell${changed.length === 1 ? '' : 's'} changed outcome; ${slower.length} flagged slower (acquire p50 or p99 > ${LATENCY_REGRESSION.ratio}× and ≥ ${LATENCY_REGRESSION.minMs} ms more; flagged, not failed). Full table: \`comparison.html\`.`,
    ...rebuilt.map((r) => `- ${md(r.lock)} × ${md(r.column)}: its lock ran another build (${md(r.lockBuildChange)})`),
    '',
  );
  if (!changed.length && !slower.length) return out;
  out.push('| cell | baseline | tonight | acquire p50 | acquire p99 |', '|---|---|---|---|---|');
  for (const r of [...new Set([...changed, ...slower])]) {
    const was = r.baseline ? `${md(r.baseline.observed)} (${r.baseline.status})` : 'absent';
    const now = r.tonight ? `${md(r.tonight.observed)} (${r.tonight.status})` : 'absent';
    const lat = (k: 'acquireP50' | 'acquireP99', ratio: number | null) =>
      r.tonight && r.baseline ? `${fmtMs(r.baseline[k])} → ${fmtMs(r.tonight[k])}${fmtRatio(ratio)}` : '–';
    out.push(
      `| ${md(r.lock)} × ${md(r.column)} | ${was} | ${now} | ${lat('acquireP50', r.p50Ratio)} | ${lat('acquireP99', r.p99Ratio)}${r.latencyRegression ? ' ⚠️' : ''} |`,
    );
  }
  out.push('');
  return out;
}

/** Every measured cell in one table, then how many were decided by construction and where the reports are. */
function everyCellLines(result: NightlyResult, reportsFrom: string): string[] {
  const out = [
    '### Every measured cell',
    '',
    '| cell | expected (from) | observed | what it shows | runs | lost | broke its promise | fault hits | acquire p50 | p99 |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const c of result.cells.filter(measured)) {
    out.push(
      `| ${md(c.lock)} × ${md(c.column ?? c.fault)} | ${md(c.expected)} (${md(c.from)}) | ${md(c.observed)} ${c.matched ? '✓' : '✗'} | ${md(cellShows(c))} | ${c.runs?.length ?? 0} | ${md(c.lostUpdates)} | ${md(promiseBrief(c.promise, c.expectedPromise))} | ${md(c.faultHits ?? '–')} | ${fmtMs(c.acquireP50)} | ${fmtMs(c.acquireP99)} |`,
    );
  }
  out.push(
    '',
    `Cells decided by construction (not run, skipped in the JUnit): ${result.cells.filter((c) => c.decided === 'construction').length}. Reports, histories and logs are in the results folder (\`${inCode(reportsFrom)}\`).`,
    '',
  );
  return out;
}

/**
 * A cell's broken promises in a table cell: the count, ` (expected 0)` where the oracle expects it kept and it broke,
 * unknown ones beside it; `unknown` when no run knew the lock's lease, `–` for results from before the checker.
 */
export function promiseBrief(p: CellPromise | undefined, expect: PromiseExpect | undefined): string {
  if (!p) return '–';
  if (!p.known) return 'unknown';
  const unknown = p.unknown ? ` (+${p.unknown} unknown)` : '';
  return `${p.broken}${p.broken > 0 && expect === 'kept' ? ' (expected 0)' : ''}${unknown}`;
}
