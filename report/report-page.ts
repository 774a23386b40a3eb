import type { LivenessResult } from '../checkers/liveness.ts';
import type { Op } from '../history/op.ts';
import type { CheckerResults, Quantiles, RunResults } from '../checkers/run-results.ts';
import { pageCss, reportJs, uplotCss, uplotJs } from './assets.ts';
import { clockData, latencyData, throughputData } from './chart-data.ts';
import { counterexampleSvg, counterexampleViews, type CounterexampleView } from './counterexample.ts';
import { faultsToDraw } from './faults-to-draw.ts';
import { History } from '../history/history.ts';
import { faultColour } from '../faults/catalogue.ts';
import { faultHitTable } from './fault-hit-table.ts';
import { fmtAt, fmtCount, fmtDuration, fmtMs, fmtSigned, plural } from './format.ts';
import { escapeHtml as h, inlineScript, inlineStyle, jsonBlock } from './html.ts';
import { RunIndex } from './op-pairs.ts';
import { findings, headline, type Finding, type WriteStory } from './findings/index.ts';
import { faultSummary, rerunCommand, type ForeignLockSeen, type TestJson } from '../store/test-json.ts';
import { RUN_FILES } from '../store/run-dir.ts';
import { shownPath } from '../common/shown-path.ts';
import { reproLine } from '../store/rerun-line.ts';
import { timelineData, WINDOW_PAD_MS, type TimelineData } from './timeline-data.ts';
import { PROMISE_CLASSES, PROMISE_COLOURS } from './promise-windows.ts';
import { PROMISE_CLASS_WORDS } from './findings/promise.ts';
import { checkerClass, checkerWord, verdictClass, verdictWord } from '../checkers/verdict.ts';
import { lostUpdateTally, NO_FAULT } from '../checkers/lost-update-faults.ts';
import { lockFinding } from '../locks/lock-finding.ts';
import { DOCS_BASE, nextStep, READING_GUIDE } from './next-step.ts';
import { runRateAgainstAssumption } from '../locks/run-clock-assumption.ts';

export interface ReportInput {
  /** The run's history (store/run-dir.ts `readRun`), or its ops (tests, hand-made pages). */
  history: History | readonly Op[];
  results: RunResults;
  test: TestJson;
  runDir?: string;
  /** Files that were missing or damaged (from readRun), shown above everything else. */
  problems?: string[];
}

/** Findings shown in full; the rest are listed one line each (a run can have hundreds of lost updates). */
const DETAILED_FINDINGS = 12;
/** Erased writes listed per lost-update card. */
const WRITE_ROWS = 12;

function configStrip(test: TestJson, results: Partial<RunResults>, faultNames: string[], runDir?: string): string {
  const c = test.config;
  const item = (k: string, v: unknown) =>
    v === undefined || v === null || v === '' ? '' : `<div><b>${h(k)}</b>${h(v)}</div>`;
  const versions = Object.entries(test.versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `<section class="config">
${item('lock', test.lock)}
${item('faults', faultSummary(test, faultNames))}
${item('fencing', c.fencing === undefined ? undefined : c.fencing ? 'on' : 'off')}
${item('TTL', c.ttlMs !== undefined ? `${fmtCount(c.ttlMs)} ms` : undefined)}
${item('pause', c.pauseMs !== undefined ? `${fmtCount(c.pauseMs)} ms` : undefined)}
${item('clients', c.concurrency)}
${item('think', c.thinkMs !== undefined ? `${c.thinkMs} ms` : undefined)}
${item('accounts', c.accounts)}
${item('time limit', c.timeLimitS !== undefined ? `${c.timeLimitS} s` : undefined)}
${item('watchdog', c.watchdog ? 'on' : undefined)}
${item('redis persistence', c.redisPersistence && c.redisPersistence !== 'none' ? c.redisPersistence : undefined)}
${item('restart delay', c.restartDelayMs ? `${c.restartDelayMs} ms` : undefined)}
${item('retry', c.retry === 'harness' ? "harness (the strategy's loop, not its library's)" : undefined)}
${item('backend', c.backend)}
${item('seed', test.seed ?? 'unknown')}
${item('duration', results.durationMs !== undefined ? fmtDuration(results.durationMs) : undefined)}
${versions ? `<div class="versions"><b>versions</b>${h(versions)}</div>` : ''}
${test.foreignLock ? `<div class="versions" id="lock-build"><b>lock build</b>${h(lockBuildText(test.foreignLock))}</div>` : ''}
</section>
<div class="rerun"><span class="aside">re-run:</span><code id="rerun">${h(rerunCommand(test))}</code><button type="button" data-copy="rerun">copy</button></div>${
    results.valid === false && runDir
      ? `\n<div class="rerun"><span class="aside">reproduce:</span><code id="reproduce">${h(reproLine(runDir))}</code><button type="button" data-copy="reproduce">copy</button></div>`
      : ''
  }`;
}

/** Which build of a lock in another language ran: its fingerprint, then what it is a hash of. */
export function lockBuildText(l: ForeignLockSeen): string {
  const short = (sha: string | null, bytes: number) =>
    sha ? `sha256 ${sha.slice(0, 12)}` : `${bytes} bytes, not hashed`;
  const parts = [
    l.manifest ? `manifest ${l.manifest.path} (sha256 ${l.manifest.sha256.slice(0, 12)})` : 'no manifest (exec:)',
    ...l.files.map((f) => `${f.path} (${short(f.sha256, f.bytes)})`),
    ...Object.entries(l.packages).map(([p, v]) => `${p} ${v}`),
  ];
  return `${l.fingerprint}: ${parts.join(', ')}`;
}

function gotoLink(f: Finding, label = 'show in timeline ↓'): string {
  const pad = Math.max(200, (f.toMs - f.fromMs) * 0.15);
  // A lost update's writes by role: the timeline labels the erased write and the one that overwrote it, joined.
  const roles = (f.writes ?? [])
    .filter((w) => w.writeOp !== null)
    .map((w) => `${w.writeOp}:${w.role}:${w.writeId}`)
    .join(',');
  return `<a class="goto" href="#timeline" data-from="${Math.max(0, f.fromMs - pad).toFixed(2)}" data-to="${(f.toMs + pad).toFixed(2)}" data-ops="${h(f.ops.slice(0, 400).join(','))}"${roles ? ` data-roles="${h(roles)}"` : ''}>${h(label)}</a>`;
}

function writesTable(writes: WriteStory[]): string {
  const rows = writes
    .slice(0, WRITE_ROWS + 1)
    .map(
      (w) =>
        `<tr class="${w.role}"><td>${w.role === 'overwrote' ? 'overwrote' : 'erased'}</td><td>${h(w.process)}</td>` +
        `<td>${w.acquiredAtMs !== null ? h(fmtAt(w.acquiredAtMs)) : '–'}</td><td class="mono">${h(w.token ?? '–')}</td>` +
        `<td class="num">${h(w.readBalance ?? '?')}</td><td>${w.readAtMs !== null ? h(fmtAt(w.readAtMs)) : '–'}</td>` +
        `<td class="num">${h(`${w.from} → ${w.to}`)}</td><td class="num">${h(fmtSigned(w.delta))}</td><td class="num">#${h(w.writeId)}</td>` +
        `<td>${w.writeAtMs !== null ? h(fmtAt(w.writeAtMs)) : '–'}</td><td>${h(w.faults.join('; ') || 'none')}</td></tr>`,
    );
  const more =
    writes.length > WRITE_ROWS + 1
      ? `<tr><td colspan="11" class="more">… and ${writes.length - WRITE_ROWS - 1} more erased writes</td></tr>`
      : '';
  return `<div class="scroll"><table><thead><tr><th></th><th>process</th><th>acquired</th><th>token</th><th class="num">read</th><th>read at</th><th class="num">wrote</th><th class="num">Δ</th><th class="num">write</th><th>committed</th><th>faults active</th></tr></thead><tbody>${rows.join('')}${more}</tbody></table></div>`;
}

/** Findings listed in the table below the cards; past this, the page points at the run's results file. */
const TABLE_ROWS = 150;
/** A kind with more findings than this gets one summary bullet instead of one each. */
const BULLETS_PER_KIND = 3;

const KIND_NAMES: Record<Finding['kind'], [string, string]> = {
  'lost-update': ['lost update', 'lost updates'],
  overlap: ['overlap', 'overlapping holds'],
  'fencing-violation': ['fencing violation', 'fencing violations'],
  'paused-holder': ['paused client', 'paused clients'],
  'stale-writes': ['stale-write note', 'stale-write notes'],
  promise: ['promise overlap', 'promise overlaps'],
  linearizability: ['linearizability failure', 'linearizability failures'],
  undecided: ['undecided checker', 'undecided checkers'],
  liveness: ['liveness measurement', 'liveness measurements'],
  clean: ['clean run', 'clean runs'],
};

/** The bullet list on the first screen: every finding when there are few, one line per kind when a kind has many. */
function summaryBullets(all: Finding[]): string {
  const byKind = new Map<string, Finding[]>();
  for (const f of all) byKind.set(`${f.kind}|${f.severity}`, [...(byKind.get(`${f.kind}|${f.severity}`) ?? []), f]);
  const items: string[] = [];
  for (const list of byKind.values()) {
    if (list.length <= BULLETS_PER_KIND) {
      for (const f of list) items.push(`<li class="${f.severity}"><a href="#${h(f.id)}">${h(f.title)}</a></li>`);
    } else {
      const [one, many] = KIND_NAMES[list[0].kind];
      const sum = (n: (f: Finding) => number) => list.reduce((s, f) => s + n(f), 0);
      const what =
        list[0].kind === 'lost-update'
          ? `${plural(
              sum((f) => (f.writes?.length ?? 2) - 1),
              'lost update',
            )} erased by ${plural(list.length, 'write')}`
          : list[0].kind === 'overlap' && list[0].severity === 'bad'
            ? `${plural(
                sum((f) => Math.max(1, f.ops.length - 1)),
                'confirmed overlap',
              )} with ${plural(list.length, 'hold')}`
            : plural(list.length, one, many);
      items.push(
        `<li class="${list[0].severity}">${h(what)}; the first: <a href="#${h(list[0].id)}">${h(list[0].title)}</a></li>`,
      );
    }
  }
  return `<ul class="summary">${items.join('')}</ul>`;
}

function findingsSection(all: Finding[]): string {
  const cards = all
    .slice(0, DETAILED_FINDINGS)
    .map(
      (f) =>
        `<article class="finding ${f.severity}" id="${h(f.id)}"><h3>${h(f.title)}${f.kind !== 'clean' && f.kind !== 'undecided' ? gotoLink(f) : ''}</h3>` +
        `${f.sentences.map((s) => `<p>${h(s)}</p>`).join('')}${f.writes ? writesTable(f.writes) : ''}</article>`,
    );
  const rest = all.slice(DETAILED_FINDINGS, DETAILED_FINDINGS + TABLE_ROWS);
  const hidden = all.length - DETAILED_FINDINGS - rest.length;
  const restTable = rest.length
    ? `<h3 class="more">${h(plural(all.length - DETAILED_FINDINGS, 'more finding'))}, one line each</h3><table class="wide"><tbody>${rest
        .map(
          (f) =>
            `<tr id="${h(f.id)}"><td><span class="v ${f.severity === 'bad' ? 'bad' : f.severity === 'good' ? 'good' : 'neutral'}">${h(f.kind)}</span></td><td>${h(f.title)}</td><td>${gotoLink({ ...f, ops: f.ops.slice(0, 40) }, 'timeline ↓')}</td></tr>`,
        )
        .join(
          '',
        )}</tbody></table>${hidden > 0 ? `<p class="more">… and ${fmtCount(hidden)} more, not shown here: ${RUN_FILES.results} lists every anomaly.</p>` : ''}`
    : '';
  return `<section id="finding-cards"><h2>Each finding <span class="aside">${all.some((f) => f.severity === 'bad') ? 'anomalies first, then context' : 'no anomalies'} · "show in timeline" zooms onto its operations</span></h2>
${cards.join('\n')}${restTable}</section>`;
}

/** The first screen's list: what happened, one line per finding (or per kind when a kind has many). */
function whatHappened(all: Finding[]): string {
  return `<section id="findings"><h2>What happened <span class="aside"><a href="#finding-cards">each finding in full ↓</a></span></h2>
${summaryBullets(all)}</section>`;
}

function timelineNote(t: TimelineData): string {
  switch (t.mode) {
    case 'full':
      return `All ${plural(t.totalPairs, 'op pair')} are drawn; hover a bar for its invoke and completion.`;
    case 'summaries':
      return `All ${plural(t.totalPairs, 'op pair')} are drawn; hover shows a one-line summary, and the full JSON for the ops the findings point at and for failed or unknown ops (${fmtCount(Object.keys(t.detail).length)} ops).`;
    case 'windowed':
      return `This history has ${plural(t.totalPairs, 'op pair')}: the timeline keeps the ${fmtCount(t.shownPairs)} within ${WINDOW_PAD_MS / 1000} s of a fault or a finding (the rest of the run is greyed out); the charts below cover the whole run.`;
  }
}

/**
 * The header's answer to "which fault did it": lost updates per fault active (results.lostUpdatesByFault, the
 * checker's tally, so the summary says the same), each fault in its timeline colour.
 */
function attribution(results: Partial<RunResults>): string {
  const tally = lostUpdateTally(results.lostUpdatesByFault);
  if (!results.lostUpdates || !tally.length) return '';
  const chips = tally.map(([f, n]) =>
    f === NO_FAULT
      ? `<span class="chip">${h(`${n} with no fault active`)}</span>`
      : `<span class="chip"><i style="background:${faultColour(f)}"></i>${h(f)} <b>${n}</b></span>`,
  );
  return `<div class="attribution">lost updates by the fault active: ${chips.join(' ')}</div>`;
}

/** The "what to do" line (next-step.ts), with links to the lock's story and to how to read this page. */
function nextStepHtml(results: Partial<RunResults>, lock: string, fencing: boolean, faultNames: string[]): string {
  const r = {
    valid: results.valid ?? 'unknown',
    lostUpdates: results.lostUpdates ?? 0,
    lostUpdatesByFault: results.lostUpdatesByFault,
    unknownReasons: results.unknownReasons ?? [],
    staleWritesRejected: results.staleWritesRejected ?? 0,
    checkers: results.checkers,
  };
  const step = nextStep(r, lockFinding(lock), { fencing, faults: [...new Set(faultNames)] });
  const link = (doc: string, label: string) => `<a href="${h(DOCS_BASE + doc)}">${h(label)}</a>`;
  // The words are the terminal's: their `code` spans become code here.
  const words = h(step.text).replace(/`([^`]+)`/g, '<code>$1</code>');
  return `<p class="next-step" id="next-step"><b>What to do:</b> ${words} ${link(step.doc, `${lock}'s story`)} · ${link(READING_GUIDE, 'how to read this report')}</p>`;
}

/** The run's clock rate against its lock's stated clock assumption (locks/clock-assumption.ts), when it has both. */
function clockHtml(lock: string, clockRate: unknown, faultNames: readonly string[]): string {
  const line = typeof clockRate === 'number' ? runRateAgainstAssumption(lock, clockRate, faultNames) : null;
  return line
    ? `<p class="next-step"><b>Clock:</b> ${h(line).replace(/--clock-rate=(\S+)/, '<code>--clock-rate=$1</code>')}</p>`
    : '';
}

function timelineSection(t: TimelineData, faultColours: Record<string, string>): string {
  const key = (colour: string, label: string, extra = '') =>
    `<span class="key"><i style="background:${colour};${extra}"></i>${h(label)}</span>`;
  return `<section id="timeline"><h2>Timeline <span class="aside">one lane per client process (a new process id after each unknown outcome, as in Jepsen) · scroll to zoom, drag to pan, double-click to reset</span></h2>
<div class="tl-note">${h(timelineNote(t))}</div>
<div class="tl-bar"><button type="button" data-zoom="in">+</button><button type="button" data-zoom="out">−</button><button type="button" data-zoom="reset">whole run</button><button type="button" data-zoom="faults">faults</button>
<span class="range" id="tl-range"></span>
${key('#3fb37f', 'ok')}${key('#f0a04b', 'fail')}${key('#a78bfa', 'info (unknown)')}${key('#9ca3af', 'never completed')}${key('rgba(37,99,235,.18)', 'holding the lock')}${key('#fff', 'finding', 'border:2px solid #c62828')}${Object.entries(
    faultColours,
  )
    .map(([f, c]) => key(c, f, 'opacity:.75'))
    .join(
      '',
    )}${key('#fff', 'erased write', 'border:2px solid #c62828;border-style:dashed')}${key('#fff', 'overwriting write', 'border:2px solid #111827')}${t.stalls.length ? key('rgba(198,40,40,.55)', 'stall (waiting, nobody holding, > TTL)') : ''}${promiseKeys(t)}</div>
<div class="tl-wrap"><canvas id="tl"></canvas><div class="tip" id="tl-tip"></div></div></section>`;
}

/** The promise brackets' key, one entry per class the timeline draws . */
function promiseKeys(t: TimelineData): string {
  return [...new Set(t.promises.map((p) => p.c))]
    .sort()
    .map(
      (c) =>
        `<span class="key"><i style="background:${PROMISE_COLOURS[c]};height:3px"></i>${h(`promise: ${PROMISE_CLASS_WORDS[PROMISE_CLASSES[c]]}`)}</span>`,
    )
    .join('');
}

const LATENCY_FS = ['acquire', 'read', 'write', 'release'] as const;

function quantileTable(results: Partial<RunResults>): string {
  const byF = results.opCounts?.byF ?? {};
  const rows = LATENCY_FS.map((f) => {
    const q: Partial<Quantiles> = results.latency?.[f] ?? {};
    const c = byF[f] ?? { ok: 0, fail: 0, info: 0 };
    return `<tr><td>${f}</td><td class="num">${fmtCount(q.count)}</td><td class="num">${fmtMs(q.p50)}</td><td class="num">${fmtMs(q.p90)}</td><td class="num">${fmtMs(q.p99)}</td><td class="num">${fmtMs(q.max)}</td><td class="num">${fmtCount(c.fail)}</td><td class="num">${fmtCount(c.info)}</td></tr>`;
  });
  return `<table><thead><tr><th>op (ok only)</th><th class="num">count</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th><th class="num">max</th><th class="num">fail</th><th class="num">info</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="aside">Throughput: ${results.throughput !== undefined ? `${results.throughput.toFixed(1)} ok ops/s` : '–'} over ${fmtDuration(results.durationMs)} · ${fmtCount(results.opCounts?.total)} ops (${fmtCount(results.opCounts?.ok)} ok, ${fmtCount(results.opCounts?.fail)} fail, ${fmtCount(results.opCounts?.info)} info).</p>`;
}

function errorsTable(index: RunIndex): string {
  const counts = new Map<string, { f: string; outcome: string; error: string; n: number; first: number }>();
  for (const p of index.pairs) {
    if (p.outcome !== 'fail' && p.outcome !== 'info') continue;
    const error = p.completion?.error ?? '(no error given)';
    const k = `${p.f}\u0000${p.outcome}\u0000${error}`;
    const c = counts.get(k) ?? { f: p.f, outcome: p.outcome, error, n: 0, first: p.endMs ?? p.startMs };
    c.n++;
    counts.set(k, c);
  }
  const rows = [...counts.values()].sort((a, b) => b.n - a.n).slice(0, 30);
  if (rows.length === 0) return '<p class="aside">No failed or unknown operations.</p>';
  return `<table><thead><tr><th>op</th><th>outcome</th><th>error</th><th class="num">count</th><th>first at</th></tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr><td>${h(r.f)}</td><td>${h(r.outcome)}</td><td class="mono">${h(r.error.length > 200 ? `${r.error.slice(0, 200)}…` : r.error)}</td><td class="num">${fmtCount(r.n)}</td><td>${h(fmtAt(r.first))}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

function checkerTable(checkers: Partial<CheckerResults> | undefined): string {
  const entries = Object.entries(checkers ?? {});
  if (entries.length === 0) return `<p class="aside">${RUN_FILES.results} has no per-checker results.</p>`;
  const rows = entries.map(([name, r]) => {
    const valid = r?.valid;
    const facts = Object.entries(r ?? {})
      .filter(([k, v]) => k !== 'valid' && (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'))
      .map(([k, v]) => (typeof v === 'number' && !Number.isInteger(v) ? [k, Number(v.toPrecision(3))] : [k, v]))
      .map(([k, v]) => `${k}: ${String(v).length > 120 ? `${String(v).slice(0, 120)}…` : String(v)}`)
      .join(' · ');
    const json = JSON.stringify(r, null, 1) ?? '';
    // n/a where the checker did not look, grey where it does not decide: VALID about nothing is not earned.
    const decides =
      r?.decides === false ? ' <span class="aside">informational: does not decide the verdict</span>' : '';
    return `<tr><td>${h(name)}</td><td><span class="v ${checkerClass(r ?? { valid })}">${h(checkerWord(r ?? { valid }))}</span>${decides}</td><td>${h(facts)}<details><summary>JSON</summary><pre>${h(json.length > 6000 ? `${json.slice(0, 6000)}\n… (${json.length - 6000} more characters)` : json)}</pre></details></td></tr>`;
  });
  return `<table class="wide"><thead><tr><th>checker</th><th>verdict</th><th>details</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function counterexampleSection(views: CounterexampleView[]): string {
  if (views.length === 0) return '';
  const one = (cx: CounterexampleView) =>
    `<h3>${h(cx.checker)}${cx.model ? ` <span class="aside">model ${h(cx.model)}</span>` : ''}</h3><p>${h(cx.message)}</p>` +
    `${cx.state ? `<p class="aside">State after the longest linearizable prefix: ${h(cx.state)}</p>` : ''}${counterexampleSvg(cx)}`;
  const deciding = views.filter((v) => v.decides);
  const info = views.filter((v) => !v.decides);
  return `<section id="counterexample"><h2>Linearizability counterexample <span class="aside">Porcupine-style: bars span call → return, spaced by history order; hover a bar for its history indexes</span></h2>
${deciding.map(one).join('')}
${info.map((cx) => `<details><summary>${h(cx.checker)} found no linearization either — informational, it does not decide the verdict (a lease-based lock under a paused holder is not a mutex by design)</summary>${one(cx)}</details>`).join('')}</section>`;
}

/**
 * The whole report as one HTML string: CSS, uPlot, our script and the data inlined, so the file opens from disk
 * anywhere. Pure (apart from reading the bundled assets once).
 */
export function renderReport(input: ReportInput): string {
  const { history, test } = input;
  const results: Partial<RunResults> = input.results ?? {};
  // Built once: the pages' pair index and fault bands share its pairing.
  const built = History.of(history);
  const index = new RunIndex(built);
  const faults = faultsToDraw(built, results);
  const ttlMs = typeof test.config.ttlMs === 'number' ? test.config.ttlMs : null;
  // The postgres strategy is its own fence (the version column), as checkRun treats it.
  const fencing = !!test.config.fencing || test.token === 'version';
  const noLock = lockFinding(test.lock).token === 'no-lock';
  const found = findings({ index, results, faults, ttlMs, fencing, lock: test.lock, noLock });
  const timeline = timelineData(index, faults, found, {
    accounts: test.config.accounts,
    concurrency: test.config.concurrency,
    stalls: (results.checkers?.liveness as Partial<LivenessResult> | undefined)?.stalls ?? [],
    promises: results.checkers?.promise?.overlaps ?? [],
  });
  const latency = latencyData(index);
  const throughput = throughputData(index);
  const clock = clockData(faults, index.endMs);
  const cxs = counterexampleViews(results.checkers, index);
  const verdict = verdictWord(results.valid);
  const vclass = verdictClass(results.valid);
  const faultNames = faults.map((w) => w.f);
  const title = `${verdict} · ${test.lock} · ${faultSummary(test, faultNames)}`;
  const when = test.startedAt ? test.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : null;
  const faultList = faults.length
    ? `<table><thead><tr><th>fault</th><th>targets</th><th>from</th><th>to</th><th>params</th><th>note</th></tr></thead><tbody>${faults
        .map(
          (w) =>
            `<tr><td>${h(w.f)}</td><td>${h(w.targets.join(', '))}</td><td>${h(fmtAt(w.startMs))}</td><td>${w.endMs === null ? 'not healed' : h(fmtAt(w.endMs))}</td><td class="mono">${h(JSON.stringify(w.params))}</td><td>${h(w.note ?? '')}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p class="aside">No faults were injected.</p>';
  const faultColours = Object.fromEntries([...new Set(faultNames)].map((f) => [f, faultColour(f)]));
  const data = { timeline, latency, throughput, clock, faultColours, promiseColours: PROMISE_COLOURS };
  const warnings = [
    ...(test.interrupted
      ? ['This run was interrupted (Ctrl-C or SIGTERM): the history ends early and the verdict cannot be trusted.']
      : []),
    ...(input.problems ?? []).map((p) => `Problem reading the run: ${p}.`),
  ];

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)} — fencepost</title>
${inlineStyle(uplotCss())}
${inlineStyle(pageCss())}
</head><body class="report">
<header class="verdict ${vclass}"><div class="badge">${h(verdict)}</div><div><h1>${h(test.lock)}${faults.length ? ` under ${h([...new Set(faultNames)].join(', '))}` : ''}: ${h(headline(results, found))}</h1>
<div class="sub">${[when, input.runDir && shownPath(input.runDir), `${fmtCount(built.ops.length)} history entries`]
    .filter(Boolean)
    .map((s) => `<span>${h(s)}</span>`)
    .join(
      '',
    )}</div>${attribution(results)}${nextStepHtml(results, test.lock, fencing, faultNames)}${clockHtml(test.lock, test.config.clockRate, faultNames)}</div></header>
<main>
${warnings.length ? `<div class="warnings">${warnings.map((w) => `<p>${h(w)}</p>`).join('')}</div>` : ''}
${whatHappened(found)}
${timelineSection(timeline, faultColours)}
${configStrip(test, results, faultNames, input.runDir)}
${findingsSection(found)}
<section id="charts"><h2>Latency and throughput <span class="aside">fault windows shaded · ${latency.mode === 'points' ? 'every ok op is a point' : `aggregated into ${fmtMs(latency.bucketMs)} buckets (p50 and max per bucket)`} · drag to zoom, double-click to reset</span></h2>
<div class="charts"><div class="chart"><h3>Latency, invoke → ok (log scale)</h3><div id="chart-latency"></div></div><div class="chart"><h3>Throughput (completions per second, ${fmtMs(throughput.bucketMs)} buckets)</h3><div id="chart-throughput"></div></div></div>
<div class="tables"><div>${quantileTable(results)}</div></div></section>
${clock ? `<section id="clock"><h2>Clock offsets <span class="aside">as the clock faults set them (from the nemesis ops, not measured on the nodes)</span></h2><div class="chart"><div id="chart-clock"></div></div>${clock.notes.map((n) => `<p class="aside">${h(n)}</p>`).join('')}</section>` : ''}
${counterexampleSection(cxs)}
<section id="faults"><h2>Faults</h2>${faultHitTable(results.faultHits)}${faultList}</section>
<section id="errors"><h2>Failed and unknown operations</h2>${errorsTable(index)}</section>
<section id="checkers"><h2>Checkers</h2>${checkerTable(results.checkers)}</section>
<footer>fencepost report · times are seconds since the run started (the harness's monotonic clock) · generated from ${RUN_FILES.history}, ${RUN_FILES.results} and ${RUN_FILES.test}${input.runDir ? ` in ${h(input.runDir)}` : ''}</footer>
</main>
${jsonBlock('fp-data', data)}
${inlineScript(uplotJs())}
${reportJs().map(inlineScript).join('\n')}
</body></html>
`;
}
