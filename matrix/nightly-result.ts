import { CLI } from '../common/cli-name.ts';
import fs from 'node:fs';
import path from 'node:path';
import type { MatrixCell } from './matrix-cell.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';

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
   * sizes shards from. Absent for a cell decided by construction, and in nights written before it was recorded.
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
  return EXIT.valid;
}

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

/**
 * A nightly*.json read back — often a downloaded CI artifact (the baseline), so not trusted: a file that is not
 * JSON, or whose cells have fields of the wrong type, is a bad argument (254) naming the file and the field.
 */
function parseNightlyResult(file: string): NightlyResult {
  const bad = (problem: string): never => {
    throw new HarnessError('bad-arguments', `${file}: ${problem}.`, {
      hint: 'give a folder a nightly run wrote (its --results), or download that night again',
    });
  };
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return bad(`not valid JSON (${(err as Error).message})`);
  }
  const result = raw as Partial<NightlyResult> | null;
  if (typeof result !== 'object' || result === null || result.version !== 1 || !Array.isArray(result.cells))
    return bad(`not a nightly result (version ${String(result?.version)})`);
  result.cells.forEach((c, i) => {
    const at = `cells[${i}]`;
    if (typeof c !== 'object' || c === null) return bad(`${at} is not an object`);
    for (const k of ['lock', 'fault', 'runDir'] as const)
      if (typeof c[k] !== 'string') bad(`${at}.${k} is not a string`);
    for (const k of ['fencing', 'matched'] as const)
      if (typeof c[k] !== 'boolean') bad(`${at}.${k} is not true or false`);
    for (const k of ['lostUpdates', 'staleWritesRejected', 'acquireP50', 'acquireP99', 'wallMs'] as const)
      if (c[k] !== undefined && !Number.isFinite(c[k])) bad(`${at}.${k} is not a number`);
    for (const k of ['observed', 'expected'] as const) if (typeof c[k] !== 'string') bad(`${at}.${k} is not a string`);
    if (c.faultHits !== undefined && !Number.isFinite(c.faultHits)) bad(`${at}.faultHits is not a number`);
    if (c.index !== undefined && !Number.isInteger(c.index)) bad(`${at}.index is not an integer`);
    if (c.liveness !== undefined) {
      if (typeof c.liveness !== 'object' || c.liveness === null) bad(`${at}.liveness is not an object`);
      for (const k of ['recoveryMedianMs', 'recoveryMaxMs', 'unrecovered', 'longestStallMs', 'runs'] as const) {
        const v = c.liveness[k];
        if (v !== undefined && v !== null && !Number.isFinite(v)) bad(`${at}.liveness.${k} is not a number`);
      }
    }
    // A run folder is a path relative to the night's folder (a merge's may climb to a shard's): never a URL or absolute.
    if (c.runDir !== '' && (path.isAbsolute(c.runDir) || /^[a-z][\w+.-]*:/i.test(c.runDir)))
      bad(`${at}.runDir ${JSON.stringify(c.runDir)} is not a run folder relative to the night`);
  });
  return result as NightlyResult;
}
