import fs from 'node:fs';
import path from 'node:path';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { lockRef } from '../workloads/lock-ref.ts';
import { HarnessError } from '../common/errors.ts';
import { shownPath } from '../common/shown-path.ts';
import { JsonSyntaxError, parseJsonWithLines } from '../common/json-lines.ts';

/**
 * The user's own expectations for the nightly job, from a small JSON file in their repo. The oracle stays the
 * default; each entry overrides one of its cells (a built-in lock × a fault) or adds a cell of the user's own
 * plugin lock. Every entry is measured. Schema (docs/nightly.md):
 *
 *   { "cells": [ { "lock": "etcd" | "./locks/ours.ts", "fault": "pause-holder" | "none" | …, "fencing": true,
 *                  "expect": "safe" | "lost", "why": "our etcd lock with fencing must never lose an update",
 *                  "maxStallMs": 5000 } ] }      (maxStallMs optional: the cell's runs get --max-stall)
 */
export const DEFAULT_EXPECTATIONS_FILE = 'fencepost.expectations.json';

export interface UserExpectation {
  /** A built-in lock's name, or a plugin's path relative to the working directory (`./locks/ours.ts`). */
  lock: string;
  /** One --nemesis fault, or `none`. */
  fault: string;
  fencing: boolean;
  expect: 'safe' | 'lost';
  why?: string;
  /**
   * The longest stall (ms) the cell's runs may show: passed as `--max-stall`, so a longer one fails the liveness
   * checker and the cell (INVALID without a lost update) contradicts a "safe".
   */
  maxStallMs?: number;
  /** Where it came from, for the page and the JUnit: `fencepost.expectations.json:7`. */
  from: string;
}

const CELL_KEYS = ['lock', 'fault', 'fencing', 'expect', 'why', 'maxStallMs'];

/** The file the nightly job reads: the one given, else ./fencepost.expectations.json when it exists, else none. */
export function expectationsPath(given: string | null, cwd = process.cwd()): string | null {
  if (given) {
    if (!fs.existsSync(given))
      throw new HarnessError('bad-arguments', `--expectations=${given}: no such file.`, {
        hint: `create it (docs/nightly.md), or drop --expectations to use the oracle alone`,
      });
    if (!fs.statSync(given).isFile())
      throw new HarnessError('bad-arguments', `--expectations=${given}: not a file (a folder?).`, {
        hint: 'give the expectations file itself, e.g. --expectations=fencepost.expectations.json',
      });
    return given;
  }
  const dflt = path.join(cwd, DEFAULT_EXPECTATIONS_FILE);
  return fs.existsSync(dflt) ? dflt : null;
}

/** Reads and validates an expectations file; any mistake is a HarnessError (exit 254) naming the line and the field. */
export function loadExpectations(file: string, cwd = process.cwd()): UserExpectation[] {
  return parseExpectations(fs.readFileSync(file, 'utf8'), shownPath(file, cwd), path.dirname(file), cwd);
}

/** The pure part of loadExpectations: `name` is how errors and `from` call the file; plugin paths resolve from `dir`. */
export function parseExpectations(text: string, name: string, dir: string, cwd = process.cwd()): UserExpectation[] {
  const hint = `fix ${name}; its schema is in docs/nightly.md`;
  let doc;
  try {
    doc = parseJsonWithLines(text);
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    throw new HarnessError(
      'bad-arguments',
      `${name} line ${err.line}, column ${err.column}: not valid JSON: ${err.message}.`,
      { hint },
    );
  }
  const bad = (at: string, message: string): never => {
    throw new HarnessError(
      'bad-arguments',
      `${name} line ${doc.lineOf.get(at) ?? 1}, ${at || 'the file'}: ${message}.`,
      { hint },
    );
  };
  const root = doc.value;
  if (!isObject(root)) return bad('', 'must be a JSON object with a "cells" array');
  for (const k of Object.keys(root))
    if (k !== 'cells' && k !== '$schema') bad(k, `unknown field "${k}" (the file has "cells")`);
  if (!Array.isArray(root.cells))
    return bad(
      root.cells === undefined ? '' : 'cells',
      '"cells" must be an array of { lock, fault, fencing?, expect, why? }',
    );
  const seen = new Map<string, string>();
  return root.cells.map((raw: unknown, i: number): UserExpectation => {
    const at = `cells[${i}]`;
    if (!isObject(raw)) return bad(at, 'must be an object { lock, fault, fencing?, expect, why? }');
    for (const k of Object.keys(raw))
      if (!CELL_KEYS.includes(k)) bad(`${at}.${k}`, `unknown field "${k}"; a cell has ${CELL_KEYS.join(', ')}`);
    const { lock, fault, fencing = false, expect, why, maxStallMs } = raw;
    const resolved = cellLock(lock, (message) => bad(`${at}.lock`, message), dir, cwd);
    if (typeof fault !== 'string' || !(fault === 'none' || (FAULT_NAMES as string[]).includes(fault))) {
      return bad(
        `${at}.fault`,
        `"fault" must be one fault of ${FAULT_NAMES.join(', ')}, or none; got ${JSON.stringify(fault)}`,
      );
    }
    if (typeof fencing !== 'boolean')
      return bad(`${at}.fencing`, `"fencing" must be true or false; got ${JSON.stringify(fencing)}`);
    if (expect !== 'safe' && expect !== 'lost')
      return bad(
        `${at}.expect`,
        `"expect" must be "safe" (no lost update) or "lost" (lost updates must show up); got ${JSON.stringify(expect)}`,
      );
    if (why !== undefined && typeof why !== 'string') return bad(`${at}.why`, '"why" must be a string');
    if (
      maxStallMs !== undefined &&
      (typeof maxStallMs !== 'number' || !Number.isInteger(maxStallMs) || maxStallMs < 1 || maxStallMs > 86_400_000)
    )
      return bad(
        `${at}.maxStallMs`,
        `"maxStallMs" must be a whole number of ms from 1 to 86400000 (--max-stall); got ${JSON.stringify(maxStallMs)}`,
      );
    const key = `${resolved}|${fault}|${fencing}`;
    const earlier = seen.get(key);
    if (earlier) bad(at, `the same cell as ${earlier} (lock ${lock}, fault ${fault}, fencing ${fencing})`);
    seen.set(key, at);
    return {
      lock: resolved,
      fault,
      fencing,
      expect,
      ...(why !== undefined ? { why } : {}),
      ...(maxStallMs !== undefined ? { maxStallMs: maxStallMs as number } : {}),
      from: `${name}:${doc.lineOf.get(at)}`,
    };
  });
}

/** A cell's lock: a built-in's name, or a plugin path resolved from the file's folder and shown from `cwd`. */
function cellLock(lock: unknown, bad: (message: string) => never, dir: string, cwd: string): string {
  if (typeof lock !== 'string' || lock === '')
    return bad(`"lock" must be a built-in lock (${BUILTIN_LOCKS.join(', ')}) or a plugin path (./locks/ours.ts)`);
  const ref = lockRef(lock);
  if (ref.kind === 'plugin') {
    const file = path.resolve(dir, lock);
    if (!fs.existsSync(file)) bad(`plugin ${lock} not found (looked for ${file})`);
    return `./${path.relative(cwd, file)}`;
  }
  if (ref.kind !== 'builtin')
    bad(
      `unknown lock "${lock}"; a built-in lock is one of ${BUILTIN_LOCKS.join(', ')}, a plugin is a path starting with ./`,
    );
  return lock;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
