import { CLI } from '../common/cli-name.ts';
import fs from 'node:fs';
import path from 'node:path';
import type { Expectation, MatrixCell, Observation } from '../matrix/matrix-cell.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { MAX_SHARDS } from './nightly-config.ts';
import { defineFormat, type FieldDocs } from '../common/file-format.ts';
import type { NightServers } from './night-servers.ts';

/** A matrix cell as the nightly job records it: where its expectation came from, its plan position, its fault hits. */
export interface NightlyCell extends MatrixCell {
  index: number;
  /** `oracle`, or the user's expectations file and line. */
  from: string;
  why?: string;
  /** Sum over the cell's runs of how often its fault hit (absent: no fault, or not counted). */
  faultHits?: number;
  /**
   * Wall time of the cell, ms: every run of it (reruns included), boot and teardown each — what `bench nightly-plan`
   * sizes shards from. Absent for a cell decided by construction (and in older nights: olderNightCell).
   */
  wallMs?: number;
}

/** `nightly.json`: one night (or one shard of it). Run folders are relative to the folder holding this file. */
export interface NightlyResult {
  version: 1;
  seed: number;
  shard: { index: number; count: number } | null;
  /** The options every cell ran with (a merge refuses shards that differ). */
  settings: string[];
  command: string;
  startedAt: string;
  wallMs: number;
  expectationsFile: string | null;
  cells: NightlyCell[];
  /**
   * A merge of part of a night (`nightly merge --partial`): the shards that left no result (`2/4`), whose measured
   * cells did not run. Absent when every shard is there.
   */
  missingShards?: string[];
  /**
   * The servers the night's runs ran on, each with its versions (`valkey-server: 8.0.1`), from their test records.
   * Absent in nights before 2026-12-06.
   */
  servers?: NightServers;
}

export const shardSuffix = (shard: NightlyResult['shard']) => (shard ? `.shard-${shard.index}-of-${shard.count}` : '');

/**
 * The job's exit code: 1 when a cell contradicts its expectation (a measured cell showed the other outcome, or
 * the CLI accepted a combination it must refuse), else 2 when a measured cell stayed inconclusive (unknown after
 * its reruns, or its harness failed), else 0.
 */
export function nightlyExit(cells: readonly MatrixCell[]): number {
  const inconclusive = (c: MatrixCell) =>
    c.decided !== 'construction' && (c.observed === 'unknown' || c.observed === 'failed');
  if (cells.some((c) => !c.matched && !inconclusive(c))) return EXIT.invalid;
  if (cells.some(inconclusive)) return EXIT.unknown;
  // A night that measured nothing decided nothing (as a history with no operations): not "every cell matched".
  if (!cells.some(measured)) return EXIT.unknown;
  return EXIT.valid;
}

/**
 * A whole night's exit code: its cells' (nightlyExit), and a night with shards missing never passes — the cells
 * those shards held did not run, so at best it is inconclusive (2).
 */
export function nightExit(result: Pick<NightlyResult, 'cells' | 'missingShards'>): number {
  const code = nightlyExit(result.cells);
  return result.missingShards?.length && code === EXIT.valid ? EXIT.unknown : code;
}

/** A cell some run decided (not one decided by construction). */
export const measured = (c: MatrixCell) => c.decided !== 'construction';

/** What a cell's JUnit case, summary row and comparison row say it is. */
export function cellStatus(c: MatrixCell): 'matched' | 'contradicted' | 'inconclusive' | 'by construction' {
  if (c.decided === 'construction') return c.matched ? 'by construction' : 'contradicted';
  if (c.matched) return 'matched';
  return c.observed === 'unknown' || c.observed === 'failed' ? 'inconclusive' : 'contradicted';
}

export function writeNightlyJson(dir: string, result: NightlyResult): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `nightly${shardSuffix(result.shard)}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/** Every nightly*.json in a folder (one night, or the shards of one), each with the folder it was read from. */
export function readNightlyFiles(dir: string): { dir: string; result: NightlyResult }[] {
  if (!fs.existsSync(dir))
    throw new HarnessError('bad-arguments', `${dir}: no such folder.`, {
      hint: 'give a folder a nightly run wrote (its --results)',
    });
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^nightly(\.shard-\d+-of-\d+)?\.json$/.test(f))
    .sort();
  if (files.length === 0)
    throw new HarnessError('bad-arguments', `${dir}: no nightly.json or nightly.shard-<i>-of-<n>.json in it.`, {
      hint: `give the --results folder of \`${CLI} nightly\``,
    });
  // A merged night has both the shards and the merge: the merge is the night.
  const chosen = files.includes('nightly.json') ? ['nightly.json'] : files;
  return chosen.map((f) => ({ dir, result: parseNightlyResult(path.join(dir, f)) }));
}

const NIGHTLY_HINT = 'give a folder a nightly run wrote (its --results), or download that night again';

/**
 * nightly.json, declared once (common/file-format.ts). Often a downloaded CI artifact (the baseline), so not trusted:
 * a value whose cells have fields of the wrong type is a bad argument (254) naming the file and the field. Its
 * decoder is the one reader of the file, and tolerant of older nights (olderNightCell): its readers see today's shape.
 */
export const NIGHTLY_FORMAT = defineFormat<NightlyResult>({
  file: 'nightly.json',
  what: 'one night (or `nightly.shard-<i>-of-<n>.json`, one shard of it); run folders are relative to its folder.',
  versionField: 'version',
  current: 1,
  versions: [
    {
      version: 1,
      what: 'the first, and the only one read (another is not a nightly result); cells got `decided`, `table`, `liveness` and `wallMs` since, read as `measured`, `faults` (oracle cells) and absent when missing',
    },
  ],
  fields: {
    version: 'the format number (above)',
    seed: 'the night’s seed',
    shard: '`null`, or `{ index, count }` for one shard of the night',
    settings: 'the options every cell ran with (a merge refuses shards that differ)',
    command: 'the command that ran the night',
    startedAt: 'when it started (ISO 8601)',
    wallMs: 'how long it took, ms',
    expectationsFile: 'the user’s expectations file, or `null`',
    cells: 'the cells, in plan order (below)',
    missingShards:
      'a merge of part of a night (`nightly merge --partial`): the shards that left no result (`"2/4"`), whose measured cells did not run; absent when none is missing',
    servers:
      'the servers its runs ran on, each with its versions from their test records (`{"valkey-server": "8.0.1", "etcd": "3.4.23"}`); absent in older nights',
  },
  parts: [
    {
      name: 'cells[]',
      what: 'a matrix.json cell (docs/matrix.md) with where its expectation came from, its plan position, its fault hits:',
      fields: {
        index: 'its position in the night’s plan',
        from: '`oracle`, or the user’s expectations file and line',
        why: 'the expectation’s reason, when the file gave one',
        faultHits: 'how often its fault hit, summed over its runs',
        wallMs: 'wall time of every run of it, boot and teardown included, ms; absent when decided by construction',
      } satisfies FieldDocs<Omit<NightlyCell, keyof MatrixCell>>,
    },
  ],
  decode: (raw, file) => {
    const bad = (problem: string): never => {
      throw new HarnessError('bad-arguments', `${file}: ${problem}.`, { hint: NIGHTLY_HINT });
    };
    const result = raw as Partial<NightlyResult> | null;
    if (typeof result !== 'object' || result === null || result.version !== 1 || !Array.isArray(result.cells))
      return bad(`not a nightly result (version ${String((result as { version?: unknown } | null)?.version)})`);
    topLevelProblems(result).forEach(bad);
    result.cells.forEach((c, i) => cellProblems(c, `cells[${i}]`).forEach(bad));
    return { ...(result as NightlyResult), cells: result.cells.map(olderNightCell) };
  },
});

/** A nightly*.json read back: a file too big or not JSON is a bad argument (254); then NIGHTLY_FORMAT's decoder. */
function parseNightlyResult(file: string): NightlyResult {
  const bad = (problem: string): never => {
    throw new HarnessError('bad-arguments', `${file}: ${problem}.`, { hint: NIGHTLY_HINT });
  };
  let raw: unknown;
  try {
    // A file too big is said inside the "not valid JSON" sentence (the catch below), as it always was.
    if (fs.statSync(file).size > MAX_NIGHTLY_BYTES) return bad(`larger than ${MAX_NIGHTLY_BYTES} bytes`);
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return bad(`not valid JSON (${(err as Error).message})`);
  }
  return NIGHTLY_FORMAT.decode(raw, file);
}

/**
 * A cell of a night written before a field was recorded, in today's shape: a cell without `decided` was measured
 * (construction cells came later), an oracle cell without `table` is the fault table's (the remedy table came
 * later). What was not measured then stays absent, as for a cell that measured none: `liveness`, `wallMs`.
 */
function olderNightCell(c: NightlyCell): NightlyCell {
  return {
    ...c,
    decided: c.decided ?? 'measured',
    ...(c.table === undefined && c.from === 'oracle' ? { table: 'faults' } : {}),
  };
}

/** The biggest nightly*.json read (a real night of every cell is ~1 MB). */
export const MAX_NIGHTLY_BYTES = 64 << 20;

const isString = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown, max: number) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= max;

/** What is wrong with a night's own fields (every one a merge, a summary or a JUnit file reads). Pure. */
export function topLevelProblems(r: Partial<NightlyResult>): string[] {
  const out: string[] = [];
  if (!Number.isInteger(r.seed) || (r.seed as number) < 0 || (r.seed as number) > 2 ** 31 - 1)
    out.push(`seed ${JSON.stringify(r.seed)} is not a whole number from 0 to ${2 ** 31 - 1}`);
  if (r.shard !== null) {
    const s = r.shard as { index?: unknown; count?: unknown } | undefined;
    if (typeof s !== 'object' || !isCount(s.count, MAX_SHARDS) || !isCount(s.index, s.count as number))
      out.push(
        `shard ${JSON.stringify(r.shard)} is not null or {"index": i, "count": n} with 1 ≤ i ≤ n ≤ ${MAX_SHARDS}`,
      );
  }
  if (!Array.isArray(r.settings) || !r.settings.every(isString)) out.push('settings is not a list of strings');
  for (const k of ['command', 'startedAt'] as const) if (!isString(r[k])) out.push(`${k} is not a string`);
  if (!Number.isFinite(r.wallMs) || (r.wallMs as number) < 0) out.push('wallMs is not a number of ms');
  if (r.expectationsFile !== null && !isString(r.expectationsFile))
    out.push('expectationsFile is not a string or null');
  if (
    r.missingShards !== undefined &&
    !(Array.isArray(r.missingShards) && r.missingShards.every((s) => isString(s) && /^\d{1,6}\/\d{1,6}$/.test(s)))
  )
    out.push('missingShards is not a list of shards ("2/4")');
  if (
    r.servers !== undefined &&
    !(typeof r.servers === 'object' && r.servers !== null && Object.values(r.servers).every(isString))
  )
    out.push('servers is not an object of version strings');
  return out;
}

// Keyed by the types themselves: a value added to either type must be added here, or this does not compile (a
// may-lose cell once made every merged night "not one of" the list).
const EXPECTED: Record<Expectation, true> = {
  safe: true,
  lost: true,
  'safe-may-starve': true,
  'may-lose': true,
  'n/a': true,
  refuse: true,
};
const OBSERVED: Record<Observation, true> = {
  safe: true,
  lost: true,
  invalid: true,
  starved: true,
  unknown: true,
  failed: true,
  refuse: true,
  accepted: true,
  'not run': true,
};
const EXPECTATIONS: readonly string[] = Object.keys(EXPECTED);
const OBSERVATIONS: readonly string[] = Object.keys(OBSERVED);

/**
 * A run folder is a path relative to the night's folder (a merge's may climb to a shard's): never a URL or
 * absolute. Empty: no run started.
 */
const runDirProblem = (v: unknown) =>
  !isString(v)
    ? 'is not a string'
    : v !== '' && (path.isAbsolute(v) || /^[a-z][\w+.-]*:/i.test(v))
      ? `${JSON.stringify(v)} is not a run folder relative to the night`
      : null;

/** What is wrong with one cell of a night (at `at`: `cells[3]`). Pure. */
export function cellProblems(c: unknown, at: string): string[] {
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return [`${at} is not an object`];
  const cell = c as Record<string, unknown>;
  const out: string[] = [];
  for (const k of ['lock', 'fault', 'from'] as const) if (!isString(cell[k])) out.push(`${at}.${k} is not a string`);
  if (cell.lockBuild !== undefined && !(isString(cell.lockBuild) && /^[0-9a-f]{12}$/.test(cell.lockBuild)))
    out.push(`${at}.lockBuild is not 12 hex digits`);
  for (const k of ['column', 'why', 'note', 'columnId'] as const)
    if (cell[k] !== undefined && !isString(cell[k])) out.push(`${at}.${k} is not a string`);
  const dir = runDirProblem(cell.runDir);
  if (dir) out.push(`${at}.runDir ${dir}`);
  for (const k of ['fencing', 'matched'] as const)
    if (typeof cell[k] !== 'boolean') out.push(`${at}.${k} is not true or false`);
  for (const k of ['lostUpdates', 'staleWritesRejected', 'acquireP50', 'acquireP99'] as const)
    if (!Number.isFinite(cell[k])) out.push(`${at}.${k} is not a number`);
  for (const k of ['wallMs', 'faultHits'] as const)
    if (cell[k] !== undefined && !Number.isFinite(cell[k])) out.push(`${at}.${k} is not a number`);
  if (!EXPECTATIONS.includes(cell.expected as string))
    out.push(`${at}.expected ${JSON.stringify(cell.expected)} is not one of ${EXPECTATIONS.join(', ')}`);
  if (!OBSERVATIONS.includes(cell.observed as string))
    out.push(`${at}.observed ${JSON.stringify(cell.observed)} is not one of ${OBSERVATIONS.join(', ')}`);
  if (!Number.isInteger(cell.index)) out.push(`${at}.index is not an integer`);
  if (cell.decided !== undefined && cell.decided !== 'measured' && cell.decided !== 'construction')
    out.push(`${at}.decided is not "measured" or "construction"`);
  if (cell.table !== undefined && cell.table !== 'faults' && cell.table !== 'remedies' && cell.table !== 'margins')
    out.push(`${at}.table is not "faults", "remedies" or "margins"`);
  out.push(
    ...livenessProblems(cell.liveness, at),
    ...promiseProblems(cell.promise, `${at}.promise`),
    ...runsProblems(cell.runs, at),
  );
  return out;
}

/** A cell's or a run's `promise` (matrix/cell-promise.ts): counts that are numbers, a `why` that is a string. */
function promiseProblems(p: unknown, at: string): string[] {
  if (p === undefined) return [];
  if (typeof p !== 'object' || p === null) return [`${at} is not an object`];
  const v = p as Record<string, unknown>;
  const out = ['broken', 'outlived', 'unknown']
    .filter((k) => !Number.isFinite(v[k]))
    .map((k) => `${at}.${k} is not a number`);
  if (typeof v.known !== 'boolean') out.push(`${at}.known is not true or false`);
  if (v.why !== undefined && !isString(v.why)) out.push(`${at}.why is not a string`);
  return out;
}

function livenessProblems(l: unknown, at: string): string[] {
  if (l === undefined) return [];
  if (typeof l !== 'object' || l === null) return [`${at}.liveness is not an object`];
  const out: string[] = [];
  for (const k of ['recoveryMedianMs', 'recoveryMaxMs', 'unrecovered', 'longestStallMs', 'runs']) {
    const v = (l as Record<string, unknown>)[k];
    if (v !== undefined && v !== null && !Number.isFinite(v)) out.push(`${at}.liveness.${k} is not a number`);
  }
  return out;
}

function runsProblems(runs: unknown, at: string): string[] {
  if (runs === undefined) return [];
  if (!Array.isArray(runs)) return [`${at}.runs is not a list`];
  const out: string[] = [];
  runs.forEach((r, j) => {
    const here = `${at}.runs[${j}]`;
    if (typeof r !== 'object' || r === null) return void out.push(`${here} is not an object`);
    const run = r as Record<string, unknown>;
    const dir = runDirProblem(run.runDir);
    if (dir) out.push(`${here}.runDir ${dir}`);
    for (const k of ['seed', 'lostUpdates', 'staleWritesRejected'] as const)
      if (!Number.isFinite(run[k])) out.push(`${here}.${k} is not a number`);
    if (!isString(run.seen)) out.push(`${here}.seen is not a string`);
    out.push(...promiseProblems(run.promise, `${here}.promise`));
  });
  return out;
}
