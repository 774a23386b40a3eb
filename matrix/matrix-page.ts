import { availabilityText } from './cell-liveness.ts';
import { cellPromise, promiseText } from './cell-promise.ts';
import fs from 'node:fs';
import path from 'node:path';
import { livenessWords, MAX_RERUNS } from './oracle.ts';
import { REMEDY_SCENARIOS } from './remedy-oracle.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { faultRank } from '../faults/fault-names.ts';
import { pageCss } from '../report/assets.ts';
import { fmtCount, fmtMs, plural } from '../report/format.ts';
import { escapeHtml as h, inlineStyle, jsonBlock } from '../report/html.ts';
import type { CellRun, MatrixCell } from './matrix-cell.ts';
import { tally, tallyLine } from './matrix-tally.ts';
import { remedyAnswers } from './remedy-answers.ts';
import { marginGrid } from './margin-grid.ts';
import { RUN_FILES, runPath } from '../store/run-dir.ts';

/**
 * The lock matrix (docs/matrix.md), measured: one row per strategy, and the grid of every run behind it. Each
 * cell links to the report that proves it and says whether it matches the oracle. A contradiction is a bug of
 * ours until proven otherwise: an unsafe cell without anomalies points at the fault injection, a safe cell with
 * anomalies at the harness.
 */

export interface MatrixPageOptions {
  /** Folder the page is written to: cell links are relative to it. */
  outDir: string;
  generatedAt?: string;
  /** The command that ran the matrix (with its seed). */
  command?: string;
  /**
   * Per lock, acquire and write latency with one client and no fault: what the lock itself costs. The cells'
   * own acquire latency includes waiting for the other holders, which measures contention and fairness.
   */
  uncontended?: Record<string, UncontendedLatency>;
  /** `--runs`: conclusive runs each measured cell got. */
  runsPerCell?: number;
}

export interface UncontendedLatency {
  acquireP50: number;
  acquireP99: number;
  writeP50: number;
  writeP99: number;
  runDir: string;
}

interface Column {
  key: string;
  fault: string;
  fencing: boolean;
  title: string;
}

function columnsOf(cells: readonly MatrixCell[]): Column[] {
  const cols = new Map<string, Column>();
  for (const c of cells) {
    const key = `${c.fault}|${c.fencing}`;
    if (!cols.has(key))
      cols.set(key, {
        key,
        fault: c.fault,
        fencing: c.fencing,
        title: c.column ?? `${c.fault === 'none' ? 'no fault' : c.fault}${c.fencing ? ' + --fencing' : ''}`,
      });
  }
  // No fault first, then the catalogue's order; the fenced columns after all the unfenced ones.
  const rank = (c: Column) => (c.fencing ? 100 : 0) + (c.fault === 'none' ? 0 : 1 + faultRank(c.fault));
  return [...cols.values()].sort((a, b) => rank(a) - rank(b));
}

function locksOf(cells: readonly MatrixCell[]): string[] {
  const seen = [...new Set(cells.map((c) => c.lock))];
  const rank = (l: string) =>
    (BUILTIN_LOCKS as readonly string[]).includes(l) ? (BUILTIN_LOCKS as readonly string[]).indexOf(l) : 100;
  return seen.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function reportLink(cell: { runDir: string }, outDir: string): string | null {
  if (!cell.runDir) return null;
  return path.relative(outDir, runPath(cell.runDir, 'report')).split(path.sep).join('/');
}

const measuredCells = (cells: readonly MatrixCell[]) => cells.filter((c) => c.decided !== 'construction');

function observedText(c: MatrixCell): string {
  switch (c.observed) {
    case 'lost':
      return `lost ${fmtCount(c.lostUpdates)}`;
    case 'safe':
      return 'safe';
    case 'invalid':
      return 'INVALID, no lost update';
    case 'starved':
      return 'starves: one client wrote every write';
    case 'refuse':
      return 'refused';
    case 'accepted':
      return 'accepted by the CLI';
    case 'failed':
      return 'harness failed';
    case 'not run':
      return 'by construction';
    default:
      return 'unknown';
  }
}

/** What a contradiction points at: a bug of ours until proven otherwise, and where to look first. */
export function suspicion(c: MatrixCell): string {
  if (c.observed === 'failed')
    return "the harness threw (its servers were stopped and the matrix went on): look at the error and the run's logs";
  if (c.expected === 'lost' && c.observed === 'safe')
    return 'an unsafe cell showed no anomaly: suspect the fault injection before the lock';
  if (c.expected === 'safe' && c.observed === 'lost')
    return 'a safe cell showed lost updates: suspect the harness before the lock';
  if (c.expected === 'safe' && c.observed === 'invalid')
    return 'a safe cell got an INVALID verdict: suspect the harness before the lock';
  if (c.observed === 'unknown')
    return 'no run could decide it (an unknown verdict, a fault that never hit, or a fence never exercised): look at its runs';
  if (c.expected === 'refuse') return 'the CLI should have refused this combination with an explanation';
  if (c.expectedLiveness === 'recovers' && (c.observed === 'lost' || c.observed === 'safe'))
    return 'a cell the oracle expects to recover stalled past the TTL: look at the stalls in its runs';
  if (c.expectedLiveness === 'stalls' && (c.observed === 'lost' || c.observed === 'safe'))
    return 'a cell the oracle expects to stall had a run without a stall: suspect the fault (did it stop a server the lock waits for?) before the lock';
  return `expected ${c.expected}, observed ${c.observed}`;
}

/** One run of a measured cell, as a line: seed, verdict, lost updates, and the fault's hits when known. */
function runLine(r: CellRun, c: MatrixCell, outDir: string): string {
  const hits =
    c.fault === 'none' ? '' : r.faultHits !== undefined ? ` · hit ${fmtCount(r.faultHits)}×` : ' · hits not known';
  const stale = c.fencing ? ` · ${fmtCount(r.staleWritesRejected)} stale rejected` : '';
  const live = r.liveness ? ` · ${availabilityText(r.liveness)}` : '';
  const promise = r.promise ? ` · promise ${promiseText(r.promise)}` : '';
  const text = `seed ${r.seed}: ${r.verdict} · ${fmtCount(r.lostUpdates)} lost${promise}${stale}${hits}${live}`;
  const link = reportLink(r, outDir);
  const why = r.why ? ` <span class="aside">(${h(r.conclusive ? r.why : `inconclusive: ${r.why}`)})</span>` : '';
  return `<li${r.conclusive ? '' : ' class="inconclusive"'}>${link ? `<a href="${h(link)}">${h(text)}</a>` : h(text)}${why}</li>`;
}

/** A cell decided by construction: drawn apart (hatched), with why no run is needed; a refusal says if the CLI did refuse. */
function constructionCellHtml(c: MatrixCell): string {
  const refusal = c.expected === 'refuse';
  const mark = refusal
    ? `<span class="mark ${c.matched ? 'ok' : 'no'}" title="${c.matched ? 'the CLI refused it, as the oracle says' : h(`contradicts the oracle: ${suspicion(c)}`)}">${c.matched ? '✓' : '✗'}</span>`
    : '';
  const what = refusal
    ? c.observed === 'refuse'
      ? 'refused by the CLI'
      : 'accepted by the CLI'
    : `expected ${c.expected}`;
  return `<td class="cell construction${c.matched ? '' : ' contradicts'}" title="decided by construction, not run">${mark}<div class="obs">by construction</div><div class="exp">${h(what)}</div>${c.note ? `<div class="exp">${h(c.note)}</div>` : ''}</td>`;
}

function cellHtml(c: MatrixCell | undefined, outDir: string): string {
  if (!c) return '<td class="cell na"><span class="aside">not run</span></td>';
  if (c.decided === 'construction') return constructionCellHtml(c);
  const cls =
    c.expected === 'n/a' && c.observed !== 'lost'
      ? 'na'
      : c.observed === 'refuse'
        ? 'na'
        : c.observed === 'safe' || c.observed === 'lost'
          ? c.observed
          : 'unknown';
  const link = reportLink(c, outDir);
  const perf =
    c.observed === 'safe' || c.observed === 'lost'
      ? `acquire p50 ${fmtMs(c.acquireP50)}${c.staleWritesRejected ? ` · ${fmtCount(c.staleWritesRejected)} stale rejected` : ''}`
      : '';
  const runs = c.runs?.length ? `<ul class="runs">${c.runs.map((r) => runLine(r, c, outDir)).join('')}</ul>` : '';
  const inner =
    `<span class="mark ${c.matched ? 'ok' : 'no'}" title="${c.matched ? 'matches the oracle' : h(`contradicts the oracle: ${suspicion(c)}`)}">${c.matched ? '✓' : '✗'}</span>` +
    `<div class="obs ${h(c.observed)}">${h(observedText(c))}</div><div class="exp">expected ${h(c.expected)}${c.expectedLiveness ? `, ${h(livenessWords(c.expectedLiveness))}` : ''}</div>` +
    (perf ? `<div class="exp">${h(perf)}</div>` : '') +
    (c.liveness ? `<div class="exp live">${h(availabilityText(c.liveness))}</div>` : '') +
    (c.promise
      ? `<div class="exp">${h(`broke its promise: ${promiseText(c.promise)}${c.expectedPromise === 'kept' ? ' (expected 0)' : ''}`)}</div>`
      : '') +
    (c.note ? `<div class="exp">${h(c.note)}</div>` : '');
  // The runs are listed after the cell's link, each linking to its own report: links cannot nest.
  return `<td class="cell ${cls}${c.matched ? '' : ' contradicts'}">${link ? `<a href="${h(link)}">${inner}</a>` : inner}${runs}</td>`;
}

function latencyCell(solo: UncontendedLatency, outDir: string): string {
  const text = `${fmtMs(solo.acquireP50)} / ${fmtMs(solo.acquireP99)}`;
  const rel = path.relative(outDir, runPath(solo.runDir, 'report'));
  return `<div><a href="${h(rel)}" title="one client, no fault: write ${h(fmtMs(solo.writeP50))} / ${h(fmtMs(solo.writeP99))}">${h(text)}</a></div><div class="aside">write ${h(fmtMs(solo.writeP50))} / ${h(fmtMs(solo.writeP99))}</div>`;
}

function median(xs: number[]): number | null {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
}

function choosingRow(lock: string, cells: MatrixCell[], outDir: string, solo?: UncontendedLatency): string {
  const link = (c: MatrixCell, text: string) => {
    const l = reportLink(c, outDir);
    return l ? `<a href="${h(l)}">${h(text)}</a>` : h(text);
  };
  const plain = measuredCells(cells).filter((c) => !c.fencing && c.observed !== 'refuse');
  const broken = plain.filter((c) => c.observed === 'lost' || c.observed === 'invalid');
  const held = plain.filter((c) => c.observed === 'safe');
  const undecided = plain.filter((c) => c.observed === 'unknown' || c.observed === 'failed');
  const name = (c: MatrixCell) => c.column ?? (c.fault === 'none' ? 'no fault' : c.fault);
  const exclusion = [
    broken.length
      ? `<div><b class="obs lost">broken</b> under ${broken.map((c) => link(c, `${name(c)} (${c.observed === 'lost' ? `${fmtCount(c.lostUpdates)} lost` : 'INVALID'})`)).join(', ')}</div>`
      : '',
    held.length ? `<div><b class="obs safe">held</b> under ${held.map((c) => link(c, name(c))).join(', ')}</div>` : '',
    undecided.length ? `<div><b>unknown</b> under ${undecided.map((c) => link(c, name(c))).join(', ')}</div>` : '',
  ].join('');

  const fenced = cells.filter((c) => c.fencing);
  let fencing: string;
  if (fenced.length === 0) fencing = '<span class="aside">not run</span>';
  else if (fenced.every((c) => c.observed === 'refuse' || c.expected === 'refuse')) {
    const c = fenced[0];
    fencing = `no: ${c.observed === 'refuse' ? 'refused' : 'expected a refusal'}${c.note ? ` (${h(c.note)})` : ''}`;
  } else if (fenced.every((c) => c.expected === 'n/a')) fencing = '<span class="aside">n/a</span>';
  else if (fenced.every((c) => c.decided === 'construction'))
    fencing = `yes <span class="aside">(by construction: ${h(fenced.map((c) => c.note ?? '').join('; '))})</span>`;
  else {
    const lost = fenced.filter((c) => c.observed === 'lost');
    const stale = fenced.reduce((s, c) => s + c.staleWritesRejected, 0);
    fencing = lost.length
      ? `<b class="obs lost">token not honoured</b>: ${lost.map((c) => link(c, `${fmtCount(c.lostUpdates)} lost under ${name(c)}`)).join(', ')}`
      : fenced.some((c) => c.observed === 'safe')
        ? `<b class="obs safe">yes, honoured</b>: ${fenced.map((c) => link(c, plural(c.staleWritesRejected, 'stale write') + ' rejected')).join(', ')}${stale === 0 ? ' <span class="aside">(no stale write was attempted: the fault may not have hit)</span>' : ''}`
        : fenced.map((c) => link(c, observedText(c))).join(', ');
  }
  const base = cells.find((c) => c.fault === 'none' && !c.fencing && (c.observed === 'safe' || c.observed === 'lost'));
  const measured = cells.filter((c) => c.observed === 'safe' || c.observed === 'lost');
  const p50 = base ? base.acquireP50 : median(measured.map((c) => c.acquireP50));
  const p99 = base ? base.acquireP99 : median(measured.map((c) => c.acquireP99));
  const lostTotal = cells.reduce((s, c) => s + (c.observed === 'lost' ? c.lostUpdates : 0), 0);
  const ran = measuredCells(cells);
  const matched = ran.filter((c) => c.matched).length;
  const apart = cells.length - ran.length;
  return (
    `<tr><td><b>${h(lock)}</b></td><td>${exclusion || '<span class="aside">–</span>'}</td><td>${fencing}</td>` +
    `<td class="num">${solo ? latencyCell(solo, outDir) : ''}<div${solo ? ' class="aside"' : ''}>${solo ? 'contended: ' : ''}${h(fmtMs(p50))} / ${h(fmtMs(p99))}${base ? '' : ' (median of the faulted runs)'}</div></td>` +
    `<td class="num">${lostTotal ? `<b class="obs lost">${fmtCount(lostTotal)}</b>` : '0'}</td>` +
    `<td class="num">${promiseCell(ran, link, name)}</td>` +
    `<td class="num">${matched === ran.length ? `<span class="obs safe">${matched}/${ran.length} ✓</span>` : `<b class="obs lost">${matched}/${ran.length}</b>`}${apart ? `<div class="aside">+${apart} by construction</div>` : ''}</td></tr>`
  );
}

/**
 * The lock's own broken promises over its measured cells, each cell that broke one linked; `not measured` when its
 * runs predate the promise checker, `unknown: why` when no run knew the lock's lease (a lock that reports none).
 */
function promiseCell(
  cells: readonly MatrixCell[],
  link: (c: MatrixCell, text: string) => string,
  name: (c: MatrixCell) => string,
): string {
  const all = cellPromise(cells);
  if (!all) return '<span class="aside">not measured</span>';
  if (!all.known || all.broken === 0) {
    const text = promiseText(all);
    return all.known && !all.unknown ? h(`${all.broken}`) : `<span class="aside">${h(text)}</span>`;
  }
  const broke = cells.filter((c) => c.promise && c.promise.broken > 0);
  return `<b class="obs lost">${fmtCount(all.broken)}</b><div class="aside">${broke.map((c) => link(c, `${c.promise!.broken} under ${name(c)}`)).join(', ')}</div>`;
}

/** How the runs were counted, said on the page: the same number per measured cell, the rerun rule, and unknown hits. */
function runsRule(cells: readonly MatrixCell[], runsPerCell: number | undefined): string {
  const runs = measuredCells(cells).flatMap((c) => (c.fault === 'none' ? [] : (c.runs ?? [])));
  const hitsUnknown = runs.filter((r) => r.faultHits === undefined && r.verdict !== 'FAILED').length;
  const per =
    runsPerCell !== undefined
      ? `Every measured cell gets ${plural(runsPerCell, 'conclusive run')}`
      : 'Every measured cell gets the same number of runs';
  return (
    `<p class="aside">${h(per)}; a run that cannot decide its cell — an unknown verdict, a fault that never hit, a fenced run that never refused a stale write — is replaced by another with the next seed (at most ${MAX_RERUNS} more), whichever way the oracle leans; replaced runs are struck through. ` +
    `Hatched cells are decided by construction and not run (no lock for the fault to break, a fault that cannot reach the strategy, a combination the CLI refuses — checked against its option validation); they are counted apart.` +
    (hitsUnknown
      ? ` Fault hits: not known for ${plural(hitsUnknown, 'run')} (${RUN_FILES.results} carried no hit count), so those runs were not held to "the fault hit".`
      : '') +
    `</p>`
  );
}

const inRemedyTable = (c: MatrixCell) => c.table === 'remedies';
const inMargins = (c: MatrixCell) => c.table === 'margins';

/** The failure-mode and remedy table: one row per lock, one column per scenario, in the oracle's order. */
function remedyGrid(cells: readonly MatrixCell[], locks: readonly string[], outDir: string): string {
  if (cells.length === 0) return '';
  const order = REMEDY_SCENARIOS.map((s) => s.id as string);
  const ids = [...new Set(cells.map((c) => c.columnId ?? c.column ?? c.fault))].sort(
    (a, b) => order.indexOf(a) - order.indexOf(b),
  );
  const title = new Map(cells.map((c) => [c.columnId ?? c.column ?? c.fault, c.column ?? c.fault]));
  const at = new Map(cells.map((c) => [`${c.lock}|${c.columnId ?? c.column ?? c.fault}`, c]));
  const rows = locks
    .filter((l) => cells.some((c) => c.lock === l))
    .map((l) => `<tr><th>${h(l)}</th>${ids.map((id) => cellHtml(at.get(`${l}|${id}`), outDir)).join('')}</tr>`);
  return (
    `<h2>Failure modes and remedies, every cell <span class="aside">observed (expected) · ✓ matches the oracle, ✗ contradicts it · each run links to its report</span></h2>` +
    `<p class="aside">Long work is a 2.5 s critical section under a 1 s TTL (--think=2500 --ttl=1000) with no fault; its cells run at least 30 s, so a safe cell can commit the 10 writes a VALID verdict needs at one write per ~2.6 s. ` +
    `The restart remedies fire restart-empty as the fault table does (every ≤ 500 ms, think ≥ 0.4 × TTL), with --redis-persistence=aof-always, or with --restart-delay raised to the TTL for at least 20 s (the masters stay down a TTL each time, so a shorter run commits too few writes for a VALID). Postgres's long-work cell is measured and expected safe, maybe starved: it holds no lease, and under a 2.5 s think one client often wins every round (it re-reads first after its own commit), leaving no second writer for a VALID — a liveness finding shown with which client wrote how much when every run starved; a VALID run matches too, a lost update does not. The paused holder with --watchdog is paused every ≤ 1 s for at least 20 s, struck only in a section whose write falls due before the holder's next renewal, so the resumed holder writes before its overdue renewal can fail, as a process back from a GC pause does. The retry remedy fires restart-empty as the fault table does with --retry=harness: it remedies redlock-npm's liveness (its package's own retry loop livelocks; ours recovers), not its safety — the restart has no delay — so the cell expects lost updates and recovery, and matches only when both show. The remedies' switches (--watchdog, --restart-delay, --redis-persistence, --retry) are the scenario's: the matrix's own are not passed to these cells.</p>` +
    `<table class="matrix"><thead><tr><th></th>${ids.map((id) => `<th>${h(title.get(id)!)}</th>`).join('')}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`
  );
}

export function renderMatrix(cells: MatrixCell[], opts: MatrixPageOptions): string {
  const faultCells = cells.filter((c) => !inRemedyTable(c) && !inMargins(c));
  const remedyCells = cells.filter(inRemedyTable);
  const cols = columnsOf(faultCells);
  const locks = locksOf(cells);
  const at = new Map(faultCells.map((c) => [`${c.lock}|${c.fault}|${c.fencing}`, c]));
  const t = tally(cells);
  const line = tallyLine(t);
  const contradictions = cells.filter((c) => !c.matched);
  const grid = locks
    .filter((l) => faultCells.some((c) => c.lock === l))
    .map(
      (l) =>
        `<tr><th>${h(l)}</th>${cols.map((col) => cellHtml(at.get(`${l}|${col.fault}|${col.fencing}`), opts.outDir)).join('')}</tr>`,
    );
  const contra = contradictions.map((c) => {
    const link = reportLink(c, opts.outDir);
    const under =
      inRemedyTable(c) || inMargins(c)
        ? (c.column ?? c.fault)
        : `${c.fault === 'none' ? 'no fault' : c.fault}${c.fencing ? ' with --fencing' : ''}`;
    const what = `${c.lock} under ${under}: expected ${c.expected}, observed ${observedText(c)} — ${suspicion(c)}`;
    return `<li>${link ? `<a href="${h(link)}">${h(what)}</a>` : h(what)}${c.note ? ` <span class="aside">(${h(c.note)})</span>` : ''}</li>`;
  });
  const faultTables = faultCells.length
    ? `<h2>Choosing a lock, measured <span class="aside">each entry links to the run that shows it</span></h2>
<table class="wide"><thead><tr><th>strategy</th><th>mutual exclusion under faults</th><th>fencing token</th><th class="num">acquire p50 / p99</th><th class="num">lost updates</th><th class="num" title="overlaps the lock caused, granting inside a lease it had promised (the promise checker); not a holder that outlived its lease">broke its promise</th><th class="num">oracle</th></tr></thead>
<tbody>${locks
        .filter((l) => faultCells.some((c) => c.lock === l))
        .map((l) =>
          choosingRow(
            l,
            faultCells.filter((c) => c.lock === l),
            opts.outDir,
            opts.uncontended?.[l],
          ),
        )
        .join('\n')}</tbody></table>
${opts.uncontended ? '<p class="aside">Latency: the first line is one client with no fault — what the lock itself costs (the write is the Postgres transaction). "Contended" is the no-fault run with every client on one account: it includes waiting for the other holders, so fair queues (etcd, ZooKeeper) show a whole round of critical sections while retry-based locks (Redis) often hand the lock straight back to the client that released it.</p>' : ''}`
    : '';
  const faultGrid = faultCells.length
    ? `<h2>Every cell <span class="aside">observed (expected) · ✓ matches the oracle, ✗ contradicts it · each run links to its report</span></h2>
${runsRule(cells, opts.runsPerCell)}
<table class="matrix"><thead><tr><th></th>${cols.map((c) => `<th>${h(c.title)}</th>`).join('')}</tr></thead><tbody>${grid.join('\n')}</tbody></table>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fencepost matrix: ${h(line)}</title>
${inlineStyle(pageCss())}
</head><body>
<header class="verdict ${t.allMatched ? 'good' : 'bad'}"><div class="badge">${t.allMatched ? 'MATCHES' : 'CONTRADICTS'}</div><div><h1>Lock matrix: ${h(line)}</h1><div class="sub">${[
    opts.generatedAt,
    opts.command,
  ]
    .filter(Boolean)
    .map((s) => `<span>${h(s)}</span>`)
    .join('')}</div></div></header>
<main>
${contra.length ? `<h2>Contradictions <span class="aside">bugs of ours until proven otherwise</span></h2><ul>${contra.join('')}</ul>` : ''}
${faultTables}
${remedyCells.length ? remedyAnswers(cells, opts.outDir) : ''}
${faultCells.length ? '' : runsRule(cells, opts.runsPerCell)}
${faultGrid}
${remedyGrid(remedyCells, locks, opts.outDir)}
${marginGrid(cells.filter(inMargins), opts.outDir, cellHtml)}
</main>
${jsonBlock('fp-matrix', cells)}
</body></html>
`;
}

/** Writes `<dir>/matrix.html` (and the cells as matrix.json, for tools); returns the page's path. */
export function writeMatrix(dir: string, cells: MatrixCell[], opts: Omit<MatrixPageOptions, 'outDir'> = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  const outDir = path.resolve(dir);
  fs.writeFileSync(path.join(outDir, 'matrix.json'), `${JSON.stringify(cells, null, 2)}\n`);
  const file = path.join(outDir, 'matrix.html');
  fs.writeFileSync(
    file,
    renderMatrix(cells, {
      generatedAt: new Date()
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC'),
      ...opts,
      outDir,
    }),
  );
  return file;
}
