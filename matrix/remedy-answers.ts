import path from 'node:path';
import { REMEDIES, type Remedy, type TableColumnRef } from './remedy-oracle.ts';
import { availabilityText, livenessSeen } from './cell-liveness.ts';
import { fmtCount } from '../report/format.ts';
import { escapeHtml as h } from '../report/html.ts';
import type { MatrixCell } from './matrix-cell.ts';
import { runPath } from '../store/run-dir.ts';

/**
 * "Which remedy fixes which failure", answered from the matrix's own cells: for each failure mode of the remedy
 * table, the locks it broke (linked to the run that shows it), the remedy, and whether the remedy held for each
 * of those locks (linked to its run) — beside what the oracle expects (matrix/remedy-oracle.ts, which the
 * docs/matrix.md's table is generated from too).
 */

const inColumn = (cells: readonly MatrixCell[], ref: TableColumnRef) =>
  cells.filter((c) => (c.table ?? 'faults') === ref.table && c.columnId === ref.id);

function link(c: MatrixCell, text: string, outDir: string): string {
  if (!c.runDir) return h(text);
  const rel = path.relative(outDir, runPath(c.runDir, 'report')).split(path.sep).join('/');
  return `<a href="${h(rel)}">${h(text)}</a>`;
}

const tableNotRun = (ref: TableColumnRef) =>
  ref.table === 'faults'
    ? 'the fault table was not run: --matrix=remedies'
    : 'the remedy table was not run: --matrix=faults';

const brokeData = (c: MatrixCell) =>
  c.decided !== 'construction' && (c.observed === 'lost' || c.observed === 'invalid');
/** A liveness failure mode (a livelock) breaks a cell whose runs stalled past the TTL (cell-liveness.ts). */
const brokeLiveness = (c: MatrixCell) => c.decided !== 'construction' && livenessSeen(c.liveness) === 'livelock';
const broke = (r: Remedy) => (r.breaks === 'liveness' ? brokeLiveness : brokeData);
const mark = (c: MatrixCell) =>
  `<span class="mark ${c.matched ? 'ok' : 'no'}" title="${c.matched ? 'as the oracle expects' : 'contradicts the oracle'}">${c.matched ? '✓' : '✗'}</span>`;

/** Whether the remedy held for one lock, in words, linked to the run. */
function heldText(c: MatrixCell, outDir: string, r: Remedy): string {
  if (r.breaks === 'liveness' && c.decided !== 'construction') {
    const seen = livenessSeen(c.liveness);
    const what =
      seen === undefined
        ? 'liveness not measured'
        : `${seen === 'recovers' ? 'held' : 'did not hold'}: ${availabilityText(c.liveness)}`;
    return `${h(c.lock)}: ${link(c, what, outDir)} ${mark(c)}`;
  }
  if (c.decided === 'construction') {
    if (c.expected === 'refuse')
      return `${h(c.lock)}: cannot apply — ${c.observed === 'refuse' ? 'refused by the CLI' : 'the CLI accepted it'} ${mark(c)}`;
    return `${h(c.lock)}: ${h(c.expected)} by construction <span class="aside">(${h(c.note ?? '')})</span>`;
  }
  const what =
    c.observed === 'safe'
      ? `held${c.fencing ? ` (${fmtCount(c.staleWritesRejected)} stale writes rejected)` : ''}`
      : c.observed === 'lost'
        ? `did not hold: ${fmtCount(c.lostUpdates)} lost`
        : c.observed === 'invalid'
          ? 'did not hold: INVALID'
          : c.observed;
  return `${h(c.lock)}: ${link(c, what, outDir)} ${mark(c)}`;
}

export function remedyAnswers(cells: readonly MatrixCell[], outDir: string): string {
  const rows = REMEDIES.map((r) => {
    const brokenCells = inColumn(cells, r.broken);
    const broken = brokenCells.filter(broke(r));
    const brokeHtml =
      brokenCells.length === 0
        ? `<span class="aside">not run in this matrix (${tableNotRun(r.broken)})</span>`
        : broken.length
          ? broken
              .map((c) =>
                link(
                  c,
                  `${c.lock} (${r.breaks === 'liveness' ? availabilityText(c.liveness) : c.observed === 'lost' ? `${fmtCount(c.lostUpdates)} lost` : 'INVALID'})`,
                  outDir,
                ),
              )
              .join(', ')
          : `<span class="aside">${r.breaks === 'liveness' ? 'no lock livelocked' : 'no lock broke'}</span>`;
    let held: string;
    if (!r.remedied) held = '<span class="aside">—</span>';
    else {
      const remedied = inColumn(cells, r.remedied);
      // The locks the failure broke; when the broken column was not run, every lock the remedy was measured on.
      const locks = brokenCells.length
        ? broken.map((c) => c.lock)
        : remedied.filter((c) => c.decided !== 'construction').map((c) => c.lock);
      const shown = locks
        .map((l) => remedied.find((c) => c.lock === l))
        .filter((c): c is MatrixCell => c !== undefined);
      held =
        remedied.length === 0
          ? `<span class="aside">not run in this matrix (${tableNotRun(r.remedied)})</span>`
          : shown.map((c) => `<div>${heldText(c, outDir, r)}</div>`).join('') ||
            '<span class="aside">no lock to remedy</span>';
    }
    return `<tr><td><b>${h(r.failure)}</b></td><td>${brokeHtml}</td><td>${h(r.remedy)}</td><td>${held}</td><td class="aside">${h(r.expect)}</td></tr>`;
  });
  return (
    `<h2>Which remedy fixes which failure <span class="aside">each entry links to the run that shows it</span></h2>` +
    `<table class="wide"><thead><tr><th>failure mode</th><th>broke</th><th>remedy</th><th>did the remedy hold?</th><th>the oracle expects</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`
  );
}
