import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { availabilityText } from './cell-liveness.ts';
import { cellPromise, promiseText } from './cell-promise.ts';
import { promiseColumn, promiseSentence } from './findings-promise.ts';
import { FINDINGS_ROWS, EARLIER_FINDINGS, type LibraryFindings } from './findings-advice.ts';
import type { MatrixCell, MatrixTable } from './matrix-cell.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import type { LockRow } from '../locks/lock-row.ts';
import type { OracleCell } from '../locks/oracle-cell.ts';
import { findingsHeading } from '../locks/lock-finding.ts';
import { expectWords, livenessWords, ORACLE, ORACLE_COLUMNS } from './oracle.ts';
import { REMEDY_ORACLE, REMEDY_SCENARIOS } from './remedy-oracle.ts';

/**
 * docs/findings.md: the page a Node developer reads before choosing a lock — each npm lock library, what it did under
 * each fault, the run that shows it and what a user of it should do. Written from the oracle (what was expected and
 * why: each row's `faults` and `remedies` in locks/<row>/row.ts), the matrix's cells (matrix.json of the
 * `--lock=all` runs given to `npm run findings`) and the per-library words of each row's `findings`. Pure.
 */
export interface RunRef {
  /** The command that replays the run the cell links to (its own argv and seed), when its folder could be read. */
  replay?: string;
}

/** One column of either table, or one of the lock's margins, as the page lists it for a lock. */
interface Column {
  table: MatrixTable;
  id: string;
  title: string;
  oracle: OracleCell;
}

function columnsOf(lock: keyof typeof ORACLE): Column[] {
  return [
    ...ORACLE_COLUMNS.map((c) => ({ table: 'faults' as const, id: c.id, title: c.title, oracle: ORACLE[lock][c.id] })),
    ...REMEDY_SCENARIOS.map((s) => ({
      table: 'remedies' as const,
      id: s.id,
      title: s.title,
      oracle: REMEDY_ORACLE[lock][s.id],
    })),
    ...((LOCK_ROWS[lock] as LockRow).margins ?? []).map((m) => ({
      table: 'margins' as const,
      id: m.id,
      title: m.title,
      oracle: m.cell,
    })),
  ];
}

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function expectedText(o: OracleCell): string {
  const what = expectWords(o.expect);
  if (o.decided !== 'measured') return what;
  return o.liveness ? `${what}, ${livenessWords(o.liveness.expect)}` : what;
}

/**
 * The expectation and its reasons, as the table's second column: "**lost**: why. Liveness: …", and the expectation
 * alone where no reason was written for the cell before its run (it printed "**safe**: " with nothing after).
 */
function expectationCell(o: OracleCell): string {
  const why = o.decided === 'measured' ? (o.why ?? '').trim() : '';
  const liveWhy = o.decided === 'measured' && o.liveness ? `Liveness: ${o.liveness.reason}.` : '';
  const reasons = [why && (liveWhy ? `${why.replace(/[.;:]$/, '')}.` : why), liveWhy].filter(Boolean).join(' ');
  return `**${expectedText(o)}**${reasons ? `: ${esc(reasons)}` : ''}`;
}

/**
 * Where the page's runs came from, as a reader can use it: a folder of the repository by its path from the root; one
 * outside it (a scratch folder under /tmp on the machine that ran the matrix) by its own name only, since its path
 * means nothing elsewhere — every cell names the command that replays its run.
 */
export function sourceText(dir: string, root: string = REPO_ROOT): string {
  const abs = path.resolve(root, dir);
  const rel = path.relative(root, abs);
  const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  return inside ? `\`${rel.split(path.sep).join('/')}\`` : `\`${path.basename(abs)}\` (a scratch folder, not kept)`;
}

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

function measuredText(c: MatrixCell | undefined): string {
  if (!c) return 'not measured yet';
  const what =
    c.observed === 'lost'
      ? `lost (${c.lostUpdates} lost update${c.lostUpdates === 1 ? '' : 's'})`
      : c.observed === 'safe' && c.fencing
        ? `safe (${c.staleWritesRejected} stale writes refused)`
        : c.observed;
  const live = c.liveness ? `; ${availabilityText(c.liveness)}` : '';
  return `${c.matched ? '✓' : '✗'} ${what}${live}`;
}

function runText(c: MatrixCell | undefined, refs: ReadonlyMap<string, RunRef>): string {
  if (!c?.runDir) return '—';
  const replay = refs.get(c.runDir)?.replay;
  // Without a replay line, the run's folder by its lock and timestamp: its absolute path is one machine's.
  return replay ? `\`${replay}\`` : `run \`${c.runDir.split(/[\\/]/).filter(Boolean).slice(-2).join('/')}\``;
}

/** The lock's section: what it is, the measured cells against the oracle, what differed and why, what to do. */
function librarySection(
  f: LibraryFindings,
  cells: ReadonlyMap<string, MatrixCell>,
  refs: ReadonlyMap<string, RunRef>,
): string[] {
  const lock = f.lock as keyof typeof ORACLE;
  const cols = columnsOf(lock);
  const measured = cols.filter((c) => c.oracle.decided === 'measured');
  const decided = cols.filter((c) => c.oracle.decided === 'construction');
  const lines = [
    `## ${findingsHeading(f.lock, f.package)}`,
    '',
    f.usage,
    '',
    ...(f.lockCheck ? [`\`lock-check ${f.lock}\` (the lock-client contract): ${f.lockCheck}.`, ''] : []),
    '| fault | expected, and why (written before the first run) | measured | broke its promise | the run that shows it |',
    '|---|---|---|---|---|',
  ];
  for (const c of measured) {
    const cell = cells.get(`${f.lock}|${c.table}:${c.id}`);
    lines.push(
      `| ${esc(c.title)} | ${expectationCell(c.oracle)} | ${esc(measuredText(cell))} | ${esc(promiseColumn(cell))} | ${esc(runText(cell, refs))} |`,
    );
  }
  const titled = measured.flatMap((c) => {
    const cell = cells.get(`${f.lock}|${c.table}:${c.id}`);
    return cell ? [{ title: c.title, cell }] : [];
  });
  lines.push('', promiseSentence(titled));
  const revisions = measured.filter((c) => c.oracle.decided === 'measured' && c.oracle.revised);
  const contradicted = measured.filter((c) => cells.get(`${f.lock}|${c.table}:${c.id}`)?.matched === false);
  if (revisions.length || contradicted.length) {
    lines.push('', '**Where the measurement differs from the prediction** (the measurement wins):', '');
    for (const c of revisions) lines.push(`- *${c.title}*: ${c.oracle.decided === 'measured' ? c.oracle.revised : ''}`);
    for (const c of contradicted)
      lines.push(
        `- *${c.title}* (✗ in the runs above): ${f.differs?.[c.id as keyof NonNullable<LibraryFindings['differs']>] ?? 'not explained yet: look at the run before trusting this cell.'}`,
      );
  }
  if (decided.length)
    lines.push(
      '',
      `Decided without a run: ${decided.map((c) => `${c.title} — ${c.oracle.expect}`).join('; ')} (the matrix page says why for each).`,
    );
  lines.push('', `**What to do:** ${f.advice}`, '');
  return lines;
}

/**
 * The rows' lost-reply cells (issue 46's three classes, locks/lost-reply-cell.ts), each with its prediction written
 * before its first replay and what the replay showed; and the double-counting class, which no row has: the gallery's
 * reentrant lock and its twin (examples/broken/reentrant-resend.ts).
 */
function lostReplySection(): string[] {
  const rows = BUILTIN_LOCKS.flatMap((lock) =>
    ((LOCK_ROWS[lock] as LockRow).lostReplies ?? []).map(
      (c) =>
        `| \`${lock}\` | ${esc(c.title)} | \`${c.scenario}\` | ${esc(typeof c.expect === 'string' ? c.expect : c.expect.anomaly)}: ${esc(c.why)} | ${esc(c.measured ?? 'not measured yet')} |`,
    ),
  );
  return [
    '## A reply lost after the server acted: three classes of lock',
    '',
    "A request reaches the server and takes effect, and its reply never comes back. What a lock does next sorts it into a class: *self-blocking* (its retry finds its own key and waits it out: an orphaned lock), *double-counting* (a reentrant acquire run twice: held twice, released once — never released), *idempotent* (its retry finds its own key or node by a name the server ties to it). Each cell's scenario drops the reply to its client's acquire at a scripted step and runs with the row's lock; `npm run jepsen -- replay <scenario> [--lock=<row>] --runs=10` measures it. These are liveness findings: the verdict stays VALID.",
    '',
    '| row | cell | scenario | expected, and why (written before the first replay) | measured |',
    '|---|---|---|---|---|',
    ...rows,
    `| gallery \`reentrant-resend.ts\` | acquire's reply lost, script resent (double-counting) | \`examples/broken/reentrant-resend.scenario.json\` | double-ownership: Redisson's shape (an HINCRBY hold count per owner), its script resent after a reply timeout — one logical acquire counts 2, one release leaves 1 (redisson #7367) | shown 10 of 10 (Wilson 95 %: 72–100 %): held twice, released once, B waits out the TTL; its fixed twin (a request id per acquire) showed nothing in 10 of 10 (2026-12-06) |`,
    '',
  ];
}

/** The whole page. `cells`: the matrix cells by `lock|table:column`; `refs`: what is known of each run folder. */
export function findingsMarkdown(
  cells: ReadonlyMap<string, MatrixCell>,
  refs: ReadonlyMap<string, RunRef>,
  sources: readonly string[],
): string {
  const atAGlance = FINDINGS_ROWS.map((f) => {
    const lock = f.lock as keyof typeof ORACLE;
    const shown = columnsOf(lock).filter((c) => c.oracle.decided === 'measured');
    const seen = shown
      .map((c) => {
        const cell = cells.get(`${f.lock}|${c.table}:${c.id}`);
        return cell ? `${c.title}: ${cell.observed}${cell.matched ? '' : ' ✗'}` : null;
      })
      .filter(Boolean);
    const promise = cellPromise(shown.flatMap((c) => cells.get(`${f.lock}|${c.table}:${c.id}`) ?? []));
    const broke = promise ? promiseText(promise) : 'not measured yet';
    return `| \`${f.lock}\` | ${esc(f.package)} | ${esc(f.verdict)} | ${esc(seen.join('; ') || 'not measured yet')} | ${esc(broke)} |`;
  });
  return [
    '<!-- Generated by `npm run findings -- <matrix folder>…` (matrix/findings-page.ts) from the oracle and the runs. Do not edit by hand. -->',
    '# Findings: the lock libraries Node developers install, under faults',
    '',
    "Each library below was installed at the version `npm install` gives (pinned in `locks/<row>/npm/`, installed into fencepost's per-machine cache on its first run, never a dependency of fencepost) and used exactly as its README's first example uses it, with its defaults and the Redis client its README constructs. Every expectation was written, with its reason, before the library's first run (`locks/<row>/row.ts`); the measured column is what the matrix found. ✓: as expected; ✗: the measurement contradicts the prediction, explained under the table.",
    '',
    '*Broke its promise* counts the overlaps the library caused itself: it granted the lock inside a lease it had already promised another holder (the promise checker, docs/checkers.md#the-locks-promise) — a bug in the library, as against a holder that outlived its lease, which only a fence stops. *Not measured yet* where the stored runs predate that checker.',
    '',
    `Runs behind this page: ${sources.map((s) => sourceText(s)).join(', ') || 'none given'}. Each cell names the command that replays its run (the seed included).`,
    '',
    '| row | package | in one line | measured cells | broke its promise |',
    '|---|---|---|---|---|',
    ...atAGlance,
    '',
    ...FINDINGS_ROWS.flatMap((f) => librarySection(f, cells, refs)),
    ...lostReplySection(),
    '## Earlier findings',
    '',
    ...EARLIER_FINDINGS.flatMap((e) => [
      `### ${e.title}`,
      '',
      e.what,
      '',
      `**Shown by:** ${e.evidence}`,
      '',
      `**What to do:** ${e.advice}`,
      '',
    ]),
  ].join('\n');
}
