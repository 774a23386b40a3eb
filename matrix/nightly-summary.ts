import path from 'node:path';
import { cellStatus, nightlyExit, type NightlyResult } from './nightly-result.ts';
import { tally, tallyLine } from './matrix-tally.ts';
import { fmtDuration, fmtMs } from '../report/format.ts';
import { compareNights, fmtRatio, LATENCY_REGRESSION } from './nightly-comparison.ts';
import { runPath } from '../store/run-dir.ts';

/**
 * The night in Markdown, for `$GITHUB_STEP_SUMMARY` (the run's page on GitHub) and summary.md in the artifact:
 * the verdict first, then what needs a look (contradicted, inconclusive, changed since the baseline, slower),
 * then every measured cell. `|` in a cell's text would split the table, so it is escaped.
 */
const md = (s: unknown) =>
  String(s ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

const VERDICT: Record<number, string> = {
  0: '✅ every measured cell matched its expectation',
  1: '❌ a cell contradicts its expectation',
  2: '⚠️ a cell stayed inconclusive',
};

export function renderSummary(result: NightlyResult, reportsFrom: string, baseline?: NightlyResult): string {
  const code = nightlyExit(result.cells);
  const out: string[] = [];
  const shard = result.shard ? ` (shard ${result.shard.index}/${result.shard.count})` : '';
  out.push(`## fencepost nightly${shard}: ${VERDICT[code]} (exit ${code})`, '');
  out.push(
    `${tallyLine(tally(result.cells))}. Seed ${result.seed}, ${md(result.settings.join(' '))}, wall time ${fmtDuration(result.wallMs)}.`,
    '',
  );
  if (result.expectationsFile)
    out.push(`Expectations: the oracle, overridden and extended by \`${md(result.expectationsFile)}\`.`, '');

  const attention = result.cells.filter((c) => ['contradicted', 'inconclusive'].includes(cellStatus(c)));
  if (attention.length) {
    out.push(
      '### Needs a look',
      '',
      '| cell | expected (from) | observed | finding | report |',
      '|---|---|---|---|---|',
    );
    for (const c of attention) {
      const report = c.runDir ? `\`${md(runPath(path.join(reportsFrom, c.runDir), 'report'))}\`` : '–';
      out.push(
        `| ${md(c.lock)} × ${md(c.column ?? c.fault)} | ${c.expected} (${md(c.from)}) | **${c.observed}** (${cellStatus(c)}) | ${md(c.note ?? `${c.lostUpdates} lost updates`)} | ${report} |`,
      );
    }
    out.push('');
  }

  if (baseline) {
    const rows = compareNights(result, baseline);
    const changed = rows.filter((r) => r.verdictChanged);
    const slower = rows.filter((r) => r.latencyRegression);
    out.push(`### Since the baseline (seed ${baseline.seed}, ${md(baseline.startedAt)})`, '');
    out.push(
      `${changed.length} cell${changed.length === 1 ? '' : 's'} changed outcome; ${slower.length} flagged slower (acquire p50 or p99 > ${LATENCY_REGRESSION.ratio}× and ≥ ${LATENCY_REGRESSION.minMs} ms more; flagged, not failed). Full table: \`comparison.html\`.`,
      '',
    );
    if (changed.length || slower.length) {
      out.push('| cell | baseline | tonight | acquire p50 | acquire p99 |', '|---|---|---|---|---|');
      for (const r of [...new Set([...changed, ...slower])]) {
        const was = r.baseline ? `${r.baseline.observed} (${r.baseline.status})` : 'absent';
        const now = r.tonight ? `${r.tonight.observed} (${r.tonight.status})` : 'absent';
        const lat = (k: 'acquireP50' | 'acquireP99', ratio: number | null) =>
          r.tonight && r.baseline ? `${fmtMs(r.baseline[k])} → ${fmtMs(r.tonight[k])}${fmtRatio(ratio)}` : '–';
        out.push(
          `| ${md(r.lock)} × ${md(r.column)} | ${was} | ${now} | ${lat('acquireP50', r.p50Ratio)} | ${lat('acquireP99', r.p99Ratio)}${r.latencyRegression ? ' ⚠️' : ''} |`,
        );
      }
      out.push('');
    }
  }

  out.push(
    '### Every measured cell',
    '',
    '| cell | expected (from) | observed | runs | lost | fault hits | acquire p50 | p99 |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const c of result.cells.filter((c) => c.decided !== 'construction')) {
    out.push(
      `| ${md(c.lock)} × ${md(c.column ?? c.fault)} | ${c.expected} (${md(c.from)}) | ${c.observed} ${c.matched ? '✓' : '✗'} | ${c.runs?.length ?? 0} | ${c.lostUpdates} | ${c.faultHits ?? '–'} | ${fmtMs(c.acquireP50)} | ${fmtMs(c.acquireP99)} |`,
    );
  }
  out.push(
    '',
    `Cells decided by construction (not run, skipped in the JUnit): ${result.cells.filter((c) => c.decided === 'construction').length}. Reports, histories and logs are in the results folder (\`${md(reportsFrom)}\`).`,
    '',
  );
  return out.join('\n');
}
