import fs from 'node:fs';
import { serverChanges, serversLine } from './night-servers.ts';
import path from 'node:path';
import {
  availabilityText,
  livenessChanges,
  LIVENESS_CHANGE_MIN_MS,
  LIVENESS_CHANGE_RATIO,
  type CellLiveness,
} from '../matrix/cell-liveness.ts';
import { cellKey } from './nightly-plan.ts';
import { cellStatus, type NightlyCell, type NightlyResult } from './nightly-result.ts';
import { pageCss } from '../report/assets.ts';
import { fmtMs } from '../report/format.ts';
import { escapeHtml as h, inlineStyle } from '../report/html.ts';
import { runPath } from '../store/run-dir.ts';

/**
 * Tonight against the baseline night, cell by cell: the verdict change, lost updates, fault hits and acquire
 * latency. A latency regression is flagged, never failed: on a shared 2-core runner a p99 moves with the
 * neighbours, and a fault's cell measures waiting out the fault. The threshold: tonight's p50 or p99 above
 * LATENCY_REGRESSION.ratio × the baseline's AND at least LATENCY_REGRESSION.minMs higher (sub-millisecond
 * acquires double on noise alone). Liveness (recovery after the fault, the longest stall) is flagged the same way, by
 * its own threshold (cell-liveness.ts).
 */
export const LATENCY_REGRESSION = { ratio: 1.5, minMs: 5 } as const;

export interface NightSide {
  status: ReturnType<typeof cellStatus>;
  observed: string;
  lostUpdates: number;
  faultHits: number | null;
  acquireP50: number;
  acquireP99: number;
  /** Recovery after the fault and the longest stall; null when no run of the cell measured them. */
  liveness: CellLiveness | null;
  /** Relative to the folder of the night it belongs to. */
  runDir: string;
  /** Which build of a lock in another language ran (lock-identity.ts's fingerprint); null when none or not known. */
  lockBuild: string | null;
}

export interface ComparisonRow {
  key: string;
  lock: string;
  column: string;
  expected: string;
  from: string;
  tonight: NightSide | null;
  baseline: NightSide | null;
  /** The outcome changed (observed or matched/contradicted), or the cell is new or gone. */
  verdictChanged: boolean;
  /** Tonight's latency ÷ the baseline's, when both were measured. */
  p50Ratio: number | null;
  p99Ratio: number | null;
  latencyRegression: boolean;
  /** Liveness numbers that moved beyond the threshold (cell-liveness.ts), in words; flagged, not failed. */
  livenessChanges: string[];
  /** A lock in another language ran another build than the baseline's (its fingerprint, lock-identity.ts), in words. */
  lockBuildChange: string | null;
}

function side(c: NightlyCell | undefined): NightSide | null {
  if (!c) return null;
  return {
    status: cellStatus(c),
    observed: c.observed,
    lostUpdates: c.lostUpdates,
    faultHits: c.faultHits ?? null,
    acquireP50: c.acquireP50,
    acquireP99: c.acquireP99,
    liveness: c.liveness ?? null,
    runDir: c.runDir,
    lockBuild: c.lockBuild ?? null,
  };
}

/** Whether the two nights ran different builds of the cell's lock, in words; null when the same or not known. */
function lockBuildChange(now: NightSide | null, before: NightSide | null): string | null {
  if (!now?.lockBuild || !before?.lockBuild || now.lockBuild === before.lockBuild) return null;
  return `lock build ${before.lockBuild} → ${now.lockBuild}`;
}

const measuredLatency = (s: NightSide | null) => s !== null && s.runDir !== '';

function regressed(now: number, before: number): boolean {
  return now > before * LATENCY_REGRESSION.ratio && now - before >= LATENCY_REGRESSION.minMs;
}

/** One row per cell of either night: tonight's order first, then cells only the baseline had. */
export function compareNights(tonight: NightlyResult, baseline: NightlyResult): ComparisonRow[] {
  const before = new Map(baseline.cells.map((c) => [cellKey(c), c]));
  const keys = [
    ...tonight.cells.map(cellKey),
    ...baseline.cells.map(cellKey).filter((k) => !tonight.cells.some((c) => cellKey(c) === k)),
  ];
  const now = new Map(tonight.cells.map((c) => [cellKey(c), c]));
  return keys.map((key) => {
    const a = side(now.get(key));
    const b = side(before.get(key));
    const cell = (now.get(key) ?? before.get(key))!;
    const both = measuredLatency(a) && measuredLatency(b);
    const p50Ratio = both && b!.acquireP50 > 0 ? a!.acquireP50 / b!.acquireP50 : null;
    const p99Ratio = both && b!.acquireP99 > 0 ? a!.acquireP99 / b!.acquireP99 : null;
    return {
      key,
      lock: cell.lock,
      column: cell.column ?? cell.fault,
      expected: cell.expected,
      from: cell.from,
      tonight: a,
      baseline: b,
      verdictChanged: a === null || b === null || a.observed !== b.observed || a.status !== b.status,
      p50Ratio,
      p99Ratio,
      latencyRegression: both && (regressed(a!.acquireP50, b!.acquireP50) || regressed(a!.acquireP99, b!.acquireP99)),
      livenessChanges: both ? livenessChanges(b!.liveness ?? undefined, a!.liveness ?? undefined) : [],
      lockBuildChange: lockBuildChange(a, b),
    };
  });
}

export const fmtRatio = (r: number | null) =>
  r === null ? '' : ` (${r >= 1 ? '+' : '−'}${Math.abs((r - 1) * 100).toFixed(0)} %)`;

function sideHtml(s: NightSide | null, nightDir: string, outDir: string): string {
  if (!s) return '<td colspan="6" class="muted">not in this night</td>';
  const rel = s.runDir
    ? path
        .relative(outDir, runPath(path.join(nightDir, s.runDir), 'report'))
        .split(path.sep)
        .join('/')
    : '';
  // `./` first: a first segment such as `javascript:x` is then a folder name, never a URL scheme.
  const report = rel && !rel.startsWith('../') ? `./${rel}` : rel;
  const observed = report ? `<a href="${h(report)}">${h(s.observed)}</a>` : h(s.observed);
  return `<td class="status-${h(s.status.replace(/ /g, '-'))}">${observed}<br><small>${h(s.status)}</small></td><td>${h(String(s.lostUpdates))}</td><td>${h(String(s.faultHits ?? '–'))}</td><td>${s.runDir ? fmtMs(s.acquireP50) : '–'}</td><td>${s.runDir ? fmtMs(s.acquireP99) : '–'}</td><td>${s.liveness ? h(availabilityText(s.liveness)) : '–'}</td>`;
}

export interface ComparisonPageOptions {
  /** Folders of the two nights (run folders are relative to them) and of the page (its links are relative to it). */
  tonightDir: string;
  baselineDir: string;
  outDir: string;
}

export function renderComparison(tonight: NightlyResult, baseline: NightlyResult, opts: ComparisonPageOptions): string {
  const rows = compareNights(tonight, baseline);
  const changed = rows.filter((r) => r.verdictChanged);
  const slower = rows.filter((r) => r.latencyRegression);
  const liveChanged = rows.filter((r) => r.livenessChanges.length > 0);
  const rebuilt = rows.filter((r) => r.lockBuildChange);
  const movedServers = serverChanges(tonight.servers, baseline.servers);
  const body = rows
    .map((r) => {
      const cls = [
        r.verdictChanged ? 'changed' : '',
        r.latencyRegression ? 'slower' : '',
        r.livenessChanges.length ? 'liveness-changed' : '',
      ]
        .filter(Boolean)
        .join(' ');
      const live = r.livenessChanges.length
        ? `<strong class="flag" title="flagged, not failed">${h(r.livenessChanges.join('; '))}</strong>`
        : 'same';
      const flag = r.latencyRegression
        ? ' <strong class="flag" title="flagged, not failed">latency regression</strong>'
        : '';
      const build = r.lockBuildChange
        ? `<br><strong class="flag lock-build" title="the lock itself changed: compare its test records">${h(r.lockBuildChange)}</strong>`
        : '';
      return `<tr class="${cls}" data-key="${h(r.key)}"><th scope="row">${h(r.lock)}</th><td>${h(r.column)}</td><td>${h(r.expected)}<br><small>${h(r.from)}</small></td>${sideHtml(r.baseline, opts.baselineDir, opts.outDir)}${sideHtml(r.tonight, opts.tonightDir, opts.outDir)}<td>${r.verdictChanged ? '<strong>changed</strong>' : 'same'}${build}</td><td>p50${h(fmtRatio(r.p50Ratio)) || ' –'}<br>p99${h(fmtRatio(r.p99Ratio)) || ' –'}${flag}</td><td>${live}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fencepost nightly: tonight vs baseline</title>
${inlineStyle(pageCss())}
${inlineStyle('tr.changed th, tr.changed td:nth-last-child(2) { background: #fff3cd; } .flag { color: #b45309; } .status-contradicted, .status-inconclusive { color: #b91c1c; font-weight: 600; } .muted { color: #777; }')}
</head><body><main>
<h1>Nightly: tonight vs baseline</h1>
<p id="headline">${changed.length} of ${rows.length} cells changed their outcome; ${slower.length} flagged for a latency regression (acquire p50 or p99 above ${LATENCY_REGRESSION.ratio}× the baseline and at least ${LATENCY_REGRESSION.minMs} ms more; flagged, not failed); ${liveChanged.length} for a liveness change (recovery max or longest stall moved by more than ${LIVENESS_CHANGE_RATIO}× and more than ${LIVENESS_CHANGE_MIN_MS} ms, or a fault never recovered from; flagged, not failed)${rebuilt.length ? `; in ${rebuilt.length} the lock in another language ran another build than the baseline's (its manifest, program or library changed)` : ''}.</p>
<p>Tonight: seed ${tonight.seed}, started ${h(tonight.startedAt)}, ${h(tonight.settings.join(' '))}. Baseline: seed ${baseline.seed}, started ${h(baseline.startedAt)}, ${h(baseline.settings.join(' '))}.</p>
<p id="servers">Servers tonight: ${h(serversLine(tonight.servers))}. Baseline: ${h(serversLine(baseline.servers))}.${movedServers.length ? ` <strong class="flag">Not the baseline's servers: ${h(movedServers.join('; '))}; a changed verdict may be the server's, not the lock's.</strong>` : ''}</p>
<table id="comparison">
<thead><tr><th rowspan="2">lock</th><th rowspan="2">fault</th><th rowspan="2">expected (from)</th><th colspan="6">baseline</th><th colspan="6">tonight</th><th rowspan="2">verdict</th><th rowspan="2">acquire latency change</th><th rowspan="2">liveness change</th></tr>
<tr><th>observed</th><th>lost</th><th>fault hits</th><th>p50</th><th>p99</th><th>availability</th><th>observed</th><th>lost</th><th>fault hits</th><th>p50</th><th>p99</th><th>availability</th></tr></thead>
<tbody>
${body}
</tbody></table>
</main></body></html>
`;
}

export function writeComparison(
  outDir: string,
  tonight: NightlyResult,
  baseline: NightlyResult,
  baselineDir: string,
  suffix = '',
): string {
  const file = path.join(outDir, `comparison${suffix}.html`);
  fs.writeFileSync(file, renderComparison(tonight, baseline, { tonightDir: outDir, baselineDir, outDir }));
  return file;
}
