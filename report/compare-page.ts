import path from 'node:path';
import type { CheckerName, RunResults } from '../checkers/run-results.ts';
import { pageCss } from './assets.ts';
import { fmtCount, fmtDuration, fmtMs } from './format.ts';
import { escapeHtml as h, inlineStyle } from './html.ts';
import { faultSummary } from '../store/test-json.ts';
import { checkerWord, verdictClass, verdictWord } from '../checkers/verdict.ts';
import { notComparable } from './comparability.ts';
import { runPath, type RunFiles } from '../store/run-dir.ts';

/**
 * Runs side by side, the first one the baseline. A row whose values differ is highlighted; for outcomes and
 * timings each later run's cell says how it moved against the baseline and whether that is better or worse.
 */

/** How a row's values compare: config (differs or not), a count or time where more is worse or better. */
type RowKind = 'config' | 'verdict' | 'more-is-worse' | 'more-is-better' | 'info';

interface Row {
  section: string;
  label: string;
  kind: RowKind;
  /** null: the run doesn't say. */
  values: (string | number | boolean | null)[];
  format?: (v: number) => string;
  /** Relative change under which a timing counts as the same (noise). */
  tolerance?: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const R = (r: RunFiles): Partial<RunResults> => r.results;

type AddRow = (
  label: string,
  kind: RowKind,
  get: (r: RunFiles) => string | number | boolean | null | undefined,
  extra?: Partial<Row>,
) => void;

/** One section of the table: `fill` adds its rows, each with every run's value. */
function section(runs: RunFiles[], name: string, fill: (add: AddRow, runs: RunFiles[]) => void): Row[] {
  const out: Row[] = [];
  fill(
    (label, kind, get, extra = {}) =>
      out.push({ section: name, label, kind, values: runs.map((r) => get(r) ?? null), ...extra }),
    runs,
  );
  return out;
}

/** The table: the runs' outcomes, then their configs, then their performance. */
function rows(runs: RunFiles[], comparable: boolean): Row[] {
  const all = [
    ...section(runs, 'Outcome', outcomeRows),
    ...section(runs, 'Config', configRows),
    ...section(runs, 'Performance', performanceRows),
  ];
  // Runs that differ in length, backend or faults: their counts differ for that alone, so none is better or worse;
  // nor is a verdict (a shorter run can be VALID for having had less time).
  const judged = new Set<RowKind>(['more-is-worse', 'more-is-better', 'verdict']);
  return comparable ? all : all.map((r): Row => (judged.has(r.kind) ? { ...r, kind: 'info' } : r));
}

function outcomeRows(add: AddRow, runs: RunFiles[]): void {
  add('verdict', 'verdict', (r) => (R(r).valid === undefined ? null : verdictWord(R(r).valid)));
  add('lost updates', 'more-is-worse', (r) => num(R(r).lostUpdates), { format: fmtCount });
  add('lost updates per minute', 'info', (r) => perMinute(num(R(r).lostUpdates), num(R(r).durationMs)), {
    format: (v) => v.toFixed(1),
  });
  add(
    'confirmed overlaps',
    'more-is-worse',
    (r) =>
      num(R(r).confirmedOverlaps) ??
      (Array.isArray(R(r).overlapDetails) ? R(r).overlapDetails!.filter((o) => o.kind === 'confirmed').length : null),
    { format: fmtCount },
  );
  add(
    'suspected overlaps',
    'info',
    (r) => {
      const all = num(R(r).overlaps);
      const c = num(R(r).confirmedOverlaps);
      return all === null ? null : all - (c ?? 0);
    },
    { format: fmtCount },
  );
  add('stale writes rejected', 'info', (r) => num(R(r).staleWritesRejected), { format: fmtCount });
  const checkerNames = [...new Set(runs.flatMap((r) => Object.keys(R(r).checkers ?? {})))] as CheckerName[];
  for (const name of checkerNames)
    add(`checker: ${name}`, 'verdict', (r) => {
      const c = R(r).checkers?.[name];
      return c ? checkerWord(c) : null;
    });
}

function configRows(add: AddRow, runs: RunFiles[]): void {
  const c = (r: RunFiles) => r.test.config;
  add('lock', 'config', (r) => r.test.lock);
  add('faults', 'config', (r) => faultSummary(r.test, Array.isArray(R(r).faults) ? R(r).faults!.map((f) => f.f) : []));
  add('fencing', 'config', (r) => (c(r).fencing === undefined ? null : c(r).fencing ? 'on' : 'off'));
  add('TTL (ms)', 'config', (r) => c(r).ttlMs);
  add('pause (ms)', 'config', (r) => c(r).pauseMs);
  add('clients', 'config', (r) => c(r).concurrency);
  add('think (ms)', 'config', (r) => c(r).thinkMs);
  add('accounts', 'config', (r) => c(r).accounts);
  add('time limit (s)', 'config', (r) => c(r).timeLimitS);
  add('nemesis interval (ms)', 'config', (r) => c(r).nemesisIntervalMs);
  add('watchdog', 'config', (r) => (c(r).watchdog === undefined ? null : c(r).watchdog ? 'on' : 'off'));
  add('redis persistence', 'config', (r) => c(r).redisPersistence);
  add('retry', 'config', (r) => c(r).retry);
  add('restart delay (ms)', 'config', (r) => c(r).restartDelayMs);
  add('clock offset (s)', 'config', (r) => c(r).clockOffsetS);
  add('backend', 'config', (r) => c(r).backend);
  add('seed', 'config', (r) => r.test.seed);
  for (const k of [...new Set(runs.flatMap((r) => Object.keys(r.test.versions)))].sort())
    add(`version: ${k}`, 'config', (r) => r.test.versions[k]);
}

function performanceRows(add: AddRow): void {
  for (const f of ['acquire', 'write', 'read', 'release'] as const) {
    for (const q of ['p50', 'p99', 'max'] as const) {
      if ((f === 'read' || f === 'release') && q !== 'p50') continue;
      add(`${f} latency ${q}`, 'more-is-worse', (r) => num(R(r).latency?.[f]?.[q]), {
        format: fmtMs,
        tolerance: 0.1,
      });
    }
  }
  add('throughput (ok ops/s)', 'more-is-better', (r) => num(R(r).throughput), {
    format: (v) => v.toFixed(1),
    tolerance: 0.05,
  });
  add('duration', 'info', (r) => num(R(r).durationMs), {
    format: (v) => fmtDuration(v),
    tolerance: 0.01,
  });
  add('ops', 'info', (r) => num(R(r).opCounts?.total), { format: fmtCount });
  add('failed ops', 'info', (r) => num(R(r).opCounts?.fail), { format: fmtCount });
  add('unknown (info) ops', 'more-is-worse', (r) => num(R(r).opCounts?.info), { format: fmtCount });
}

const VERDICT_RANK: Record<string, number> = { VALID: 0, UNKNOWN: 1, INVALID: 2 };

/** 'worse' | 'better' | 'changed' | '' for a later run's value against the baseline. */
function movement(row: Row, base: Row['values'][number], v: Row['values'][number]): { cls: string; delta: string } {
  // Equal as shown is unchanged: `9.4 → 9.4` (9.43 and 9.38 per minute) was highlighted as a change of −0%.
  if (v === null || base === null || show(row, v) === show(row, base)) return { cls: '', delta: '' };
  if (row.kind === 'verdict') {
    const d = (VERDICT_RANK[String(v)] ?? 1) - (VERDICT_RANK[String(base)] ?? 1);
    return { cls: d > 0 ? 'changed worse' : d < 0 ? 'changed better' : 'changed', delta: '' };
  }
  if (typeof v === 'number' && typeof base === 'number') {
    const diff = v - base;
    const rel = base === 0 ? Infinity : Math.abs(diff) / Math.abs(base);
    const delta =
      base === 0 || row.format === fmtCount
        ? `${diff > 0 ? '+' : '−'}${row.format ? row.format(Math.abs(diff)) : Math.abs(diff)}`
        : `${diff > 0 ? '+' : '−'}${Math.round(rel * 100)}%`;
    if (row.tolerance !== undefined && rel < row.tolerance) return { cls: '', delta: '' };
    if (row.kind === 'more-is-worse') return { cls: diff > 0 ? 'changed worse' : 'changed better', delta };
    if (row.kind === 'more-is-better') return { cls: diff > 0 ? 'changed better' : 'changed worse', delta };
    return { cls: 'changed', delta };
  }
  return { cls: 'changed', delta: '' };
}

function show(row: Row, v: Row['values'][number]): string {
  if (v === null) return '–';
  if (typeof v === 'number' && row.format) return row.format(v);
  return String(v);
}

/** What changed, in a few lines: config differences and outcome moves against the baseline. */
function changes(all: Row[], runs: RunFiles[]): string[] {
  const out: string[] = [];
  for (const row of all) {
    if (row.kind !== 'config' && row.section !== 'Outcome') continue;
    if (row.label.startsWith('checker:')) continue;
    const base = row.values[0];
    for (let i = 1; i < runs.length; i++) {
      const v = row.values[i];
      if (show(row, v) !== show(row, base)) out.push(`run ${i + 1}: ${row.label} ${show(row, base)} → ${show(row, v)}`);
    }
  }
  return out;
}

const perMinute = (n: number | null, ms: number | null): number | null =>
  n === null || !ms ? null : (n * 60_000) / ms;

export function renderCompare(runs: RunFiles[], opts: { outDir: string }): string {
  const reasons = notComparable(runs);
  const all = rows(runs, reasons.length === 0);
  const heads = runs.map((r, i) => {
    const v = r.results.valid;
    const report = path.relative(opts.outDir, runPath(r.dir, 'report')).split(path.sep).join('/');
    return `<th><div>run ${i + 1}${i === 0 ? ' (baseline)' : ''}</div><div><span class="v ${verdictClass(v)}">${h(verdictWord(v))}</span> ${h(r.test.lock)}</div><div class="aside"><a href="${h(report)}">${h(path.basename(r.dir))}</a></div></th>`;
  });
  let section = '';
  const body: string[] = [];
  for (const row of all) {
    if (row.kind === 'config' && row.values.every((v) => v === null)) continue;
    if (row.section !== section) {
      section = row.section;
      body.push(`<tr><th colspan="${runs.length + 1}" class="section">${h(section)}</th></tr>`);
    }
    const differs = row.values.some((v) => show(row, v) !== show(row, row.values[0]));
    const cells = row.values.map((v, i) => {
      if (i === 0) return `<td class="num">${h(show(row, v))}</td>`;
      const m =
        row.kind === 'config'
          ? { cls: v !== row.values[0] ? 'changed' : '', delta: '' }
          : movement(row, row.values[0], v);
      return `<td class="num ${m.cls}">${h(show(row, v))}${m.delta ? `<span class="delta">${h(m.delta)}</span>` : ''}</td>`;
    });
    body.push(`<tr class="${differs ? 'differs' : ''}"><td>${h(row.label)}</td>${cells.join('')}</tr>`);
  }
  const what = changes(all, runs);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fencepost compare: ${h(runs.map((r) => r.test.lock).join(' vs '))}</title>
${inlineStyle(pageCss())}
<style>th.section { padding-top: 14px; font-size: 13px; color: var(--ink); } tr.differs td:first-child { font-weight: 600; } table.compare td.num, table.compare th { min-width: 150px; } table.compare td:first-child { min-width: 190px; }</style>
</head><body>
<div class="topbar"><h1>Comparing ${runs.length} runs</h1><div class="sub">run 1 is the baseline · changed cells are highlighted: red worse, green better, yellow different</div></div>
<main>
${
  reasons.length
    ? `<div class="warnings"><p><b>These runs are not comparable</b>: their counts differ for these reasons alone, so no count is marked better or worse (compare the per-minute rates, or rerun with the same settings).</p><ul>${reasons.map((r) => `<li>${h(r)}</li>`).join('')}</ul></div>`
    : ''
}
<h2>What changed</h2>
${what.length ? `<ul>${what.map((w) => `<li>${h(w)}</li>`).join('')}</ul>` : '<p class="aside">Same configuration and outcome.</p>'}
<h2>Side by side</h2>
<table class="compare"><thead><tr><th></th>${heads.join('')}</tr></thead><tbody>${body.join('\n')}</tbody></table>
<footer>${runs.map((r, i) => `run ${i + 1}: ${h(r.dir)}`).join('<br>')}</footer>
</main></body></html>
`;
}
