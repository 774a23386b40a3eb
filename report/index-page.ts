import { CLI } from '../common/cli-name.ts';
import fs from 'node:fs';
import path from 'node:path';
import { listRunDirs, readResults, readTest, RUN_FILES, runPath } from '../store/run-dir.ts';
import { pageCss, tableJs } from './assets.ts';
import { fmtCount, fmtDuration } from './format.ts';
import { escapeHtml as h, inlineScript, inlineStyle } from './html.ts';
import { faultSummary, type TestJson } from '../store/test-json.ts';
import { verdictClass, verdictWord } from '../checkers/verdict.ts';

/** One row of `results/index.html`: read from the run's test record and results only (never the history: it's big). */
export interface RunSummary {
  dir: string;
  /** The run dir relative to the results root, with forward slashes (a link from index.html). */
  rel: string;
  /** ISO time the run started (its test record, else the folder name). */
  startedAt: string;
  lock: string;
  faults: string;
  fencing: boolean;
  valid: unknown;
  lostUpdates: number | null;
  confirmedOverlaps: number | null;
  staleWritesRejected: number | null;
  ops: number | null;
  durationMs: number | null;
  seed: number | null;
  hasReport: boolean;
  hasResults: boolean;
  interrupted: boolean;
}

/** `2026-11-29T08-17-13.976Z` (a run folder) → `2026-11-29T08:17:13.976Z`. */
function folderTime(name: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2}(?:\.\d+)?Z)/.exec(name);
  return m ? `${m[1]}:${m[2]}:${m[3]}` : name;
}

export function summarizeRun(dir: string, resultsRoot: string): RunSummary {
  const test: TestJson = readTest(dir);
  const unread: string[] = [];
  const r = readResults(dir, unread);
  const read = unread.length === 0;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    dir,
    rel: path.relative(resultsRoot, dir).split(path.sep).join('/'),
    startedAt: test.startedAt ?? folderTime(path.basename(dir)),
    lock: test.lock,
    faults: faultSummary(test, Array.isArray(r.faults) ? r.faults.map((f) => String(f?.f)) : []),
    fencing: !!test.config.fencing,
    valid: read ? r.valid : 'none',
    lostUpdates: num(r.lostUpdates),
    confirmedOverlaps:
      num(r.confirmedOverlaps) ??
      (Array.isArray(r.overlapDetails) ? r.overlapDetails.filter((o) => o?.kind === 'confirmed').length : null),
    staleWritesRejected: num(r.staleWritesRejected),
    ops: num(r.opCounts?.total),
    durationMs: num(r.durationMs),
    seed: test.seed,
    hasReport: fs.existsSync(runPath(dir, 'report')),
    hasResults: read,
    interrupted: test.interrupted,
  };
}

/** Matrix pages (`matrix.html`) anywhere up to three folders below the results root, newest first. */
export function findMatrixPages(resultsRoot: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isFile() && /^matrix.*\.html$/.test(e.name)) out.push(p);
      else if (
        e.isDirectory() &&
        !e.isSymbolicLink() &&
        depth < 3 &&
        e.name !== RUN_FILES.logs &&
        e.name !== RUN_FILES.nodes
      )
        walk(p, depth + 1);
    }
  };
  walk(resultsRoot, 0);
  return out.sort((a, b) => b.localeCompare(a));
}

const verdictLabel = (r: RunSummary) =>
  r.valid === 'none' ? (r.interrupted ? 'STOPPED' : 'NO RESULT') : verdictWord(r.valid);

export function renderIndex(
  runs: RunSummary[],
  opts: { resultsRoot: string; matrices?: string[]; generatedAt?: string },
): string {
  const counts = { good: 0, bad: 0, unknown: 0 };
  for (const r of runs) counts[verdictClass(r.valid)]++;
  const rows = runs.map((r) => {
    const link = r.hasReport
      ? `${r.rel}/${RUN_FILES.report}`
      : r.hasResults
        ? `${r.rel}/${RUN_FILES.results}`
        : `${r.rel}/`;
    const cls = verdictClass(r.valid);
    const n = (v: number | null) => (v === null ? '–' : fmtCount(v));
    return (
      `<tr class="${cls === 'bad' ? 'row-bad' : ''}" data-text="${h(`${r.lock} ${r.faults} ${verdictLabel(r)} ${r.rel}`.toLowerCase())}">` +
      `<td data-sort="${h(r.startedAt)}"><a href="${h(link)}">${h(r.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ''))}</a></td>` +
      `<td>${h(r.lock)}</td><td>${h(r.faults)}</td><td>${r.fencing ? 'on' : ''}</td>` +
      `<td data-sort="${cls}"><span class="v ${cls}">${h(verdictLabel(r))}</span></td>` +
      `<td class="num" data-sort="${r.lostUpdates ?? -1}">${r.lostUpdates ? `<b>${n(r.lostUpdates)}</b>` : n(r.lostUpdates)}</td>` +
      `<td class="num" data-sort="${r.confirmedOverlaps ?? -1}">${n(r.confirmedOverlaps)}</td>` +
      `<td class="num" data-sort="${r.staleWritesRejected ?? -1}">${n(r.staleWritesRejected)}</td>` +
      `<td class="num" data-sort="${r.ops ?? -1}">${n(r.ops)}</td>` +
      `<td class="num" data-sort="${r.durationMs ?? -1}">${h(fmtDuration(r.durationMs))}</td>` +
      `<td class="num">${h(r.seed ?? '–')}</td>` +
      `<td>${r.hasReport ? `<a href="${h(`${r.rel}/${RUN_FILES.report}`)}">report</a>` : ''} <a href="${h(`${r.rel}/`)}">files</a></td></tr>`
    );
  });
  const matrices = (opts.matrices ?? []).map((m) => {
    const rel = path.relative(opts.resultsRoot, m).split(path.sep).join('/');
    return `<li><a href="${h(rel)}">${h(rel)}</a></li>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fencepost results (${runs.length})</title>
${inlineStyle(pageCss())}
</head><body>
<div class="topbar"><h1>fencepost results</h1><div class="sub">${h(opts.resultsRoot)} · ${runs.length} run${runs.length === 1 ? '' : 's'}: <span class="v bad">${counts.bad} invalid</span> <span class="v good">${counts.good} valid</span> <span class="v unknown">${counts.unknown} unknown</span>${opts.generatedAt ? ` · updated ${h(opts.generatedAt)}` : ''}</div></div>
<main>
${matrices.length ? `<h2>Matrix runs</h2><ul>${matrices.join('')}</ul>` : ''}
<h2>Runs <span class="aside">newest first · click a column to sort · compare two with <code>${CLI} compare &lt;run-dir&gt; &lt;run-dir&gt;</code></span></h2>
<div class="filter"><input type="search" id="filter" placeholder="filter: lock, fault, verdict…" aria-label="filter runs"><span class="aside" id="shown"></span></div>
${
  runs.length
    ? `<table class="wide sortable" id="runs"><thead><tr><th class="sortable">started (UTC)</th><th class="sortable">lock</th><th class="sortable">faults</th><th class="sortable">fencing</th><th class="sortable">verdict</th><th class="num sortable">lost updates</th><th class="num sortable">overlaps</th><th class="num sortable">stale rejected</th><th class="num sortable">ops</th><th class="num sortable">duration</th><th class="num">seed</th><th></th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`
    : `<p>No runs yet. Start one with <code>${CLI} --lock=redis</code>.</p>`
}
</main>
${inlineScript(tableJs())}
</body></html>
`;
}

/** Rewrites `<resultsDir>/index.html` from every run dir under it; returns its path. */
export function writeIndex(resultsDir: string, unreadable: string[] = []): string {
  const root = path.resolve(resultsDir);
  fs.mkdirSync(root, { recursive: true });
  // A run whose files cannot be read is left out, and named: one such folder must not take the whole index down.
  const runs = listRunDirs(root, unreadable).flatMap((d) => {
    try {
      return [summarizeRun(d, root)];
    } catch {
      unreadable.push(d);
      return [];
    }
  });
  runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  const file = path.join(root, 'index.html');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(
    tmp,
    renderIndex(runs, {
      resultsRoot: root,
      matrices: findMatrixPages(root),
      generatedAt: new Date()
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC'),
    }),
  );
  // Rename so a browser refreshing the index (serve) never reads a half-written file.
  fs.renameSync(tmp, file);
  return file;
}
