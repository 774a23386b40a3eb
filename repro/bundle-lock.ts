import fs from 'node:fs';
import path from 'node:path';
import { walkArgv } from '../common/walk-argv.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import { EXEC_PREFIX, lockRef } from '../workloads/lock-ref.ts';
import { BUNDLE_FILES, type BundleJson } from './bundle-format.ts';

/** Files a manifest's command may run through an interpreter (`python3 lock.py`): a program, not its data. */
const SCRIPT_EXTENSIONS = /\.(py|js|mjs|cjs|ts|rb|pl|sh|bash|php|lua|jar|exs?|clj|groovy|kts?|java|go|rs|tcl|r)$/i;

/** The mode of a copied program (it must stay runnable) and of every folder of a bundle: the owner's alone. */
export const BUNDLE_DIR_MODE = 0o700;

/** The lock as the bundle carries it. `ref` is how its scenario names it, relative to the scenario file. */
export interface CopiedLock {
  kind: BundleJson['lock']['kind'];
  ref: string;
  file?: string;
  /** Files the manifest's command names that were left out (data, config, credentials): the user adds them by hand. */
  notCopied: string[];
}

/**
 * The lock's code into the bundle when it is not built in: a plugin module as `lock/<file>`, an `exec:` program as
 * `lock/<program>`, a manifest as `lock/<file>.json` with the one program its command runs beside it (its `cwd` is
 * then the bundle's lock/ folder). Only code travels: a `creds.env` or a config file the command merely names is
 * listed in `notCopied` (audit R11). Everything is written with the run folder's modes (audit R20).
 */
export function copyLock(lock: string, dir: string): CopiedLock {
  const ref = lockRef(lock);
  if (ref.kind === 'builtin') return { kind: 'builtin', ref: lock, notCopied: [] };
  const lockDir = path.join(dir, BUNDLE_FILES.lock);
  fs.mkdirSync(lockDir, { recursive: true, mode: BUNDLE_DIR_MODE });
  if (ref.kind === 'exec') {
    const program = path.resolve(ref.program);
    const file = `${BUNDLE_FILES.lock}/${path.basename(program)}`;
    copyOwn(program, path.join(dir, file));
    return { kind: 'exec', ref: `${EXEC_PREFIX}${file}`, file, notCopied: [] };
  }
  const src = path.resolve(lock);
  const file = `${BUNDLE_FILES.lock}/${path.basename(src)}`;
  if (ref.kind !== 'manifest') {
    copyOwn(src, path.join(dir, file));
    return { kind: 'plugin', ref: file, file, notCopied: [] };
  }
  const manifest = JSON.parse(fs.readFileSync(src, 'utf8')) as { cwd?: string; command?: string[] };
  const cwd = path.resolve(path.dirname(src), manifest.cwd ?? '.');
  const named = (manifest.command ?? []).filter((arg) => {
    const f = path.resolve(cwd, arg);
    return !path.isAbsolute(arg) && f.startsWith(cwd + path.sep) && fs.statSync(f, { throwIfNoEntry: false })?.isFile();
  });
  const program = programOf(manifest.command ?? [], named, cwd);
  if (program) {
    fs.mkdirSync(path.dirname(path.join(lockDir, program)), { recursive: true, mode: BUNDLE_DIR_MODE });
    copyOwn(path.resolve(cwd, program), path.join(lockDir, program));
  }
  const { cwd: _cwd, ...rest } = manifest;
  fs.writeFileSync(path.join(dir, file), `${JSON.stringify(rest, null, 2)}\n`, { mode: RUN_FILE_MODE });
  return { kind: 'manifest', ref: file, file, notCopied: named.filter((n) => n !== program) };
}

/**
 * The one file of the command that is its program: the command itself when it is a file of the lock's folder
 * (`./lock.sh`), else the first file it names that an interpreter runs — a script by its extension, or executable.
 */
function programOf(command: readonly string[], named: readonly string[], cwd: string): string | null {
  if (command[0] !== undefined && named.includes(command[0])) return command[0];
  return named.find((n) => SCRIPT_EXTENSIONS.test(n) || (fs.statSync(path.resolve(cwd, n)).mode & 0o111) !== 0) ?? null;
}

/** A copy readable by its owner alone; a program stays runnable (by its owner). */
function copyOwn(from: string, to: string): void {
  fs.copyFileSync(from, to);
  fs.chmodSync(to, fs.statSync(from).mode & 0o111 ? BUNDLE_DIR_MODE : RUN_FILE_MODE);
}

/**
 * The original command line without the machine's paths: `--results` and `--target` dropped (folders of that
 * machine), `--lock` as the bundle names it, any other absolute path reduced to its file name.
 */
export function portableArgv(argv: readonly string[], lockRefInBundle: string): string[] {
  const portable = (value: string) => (path.isAbsolute(value) ? path.basename(value) : value);
  // A run's argv has no words, so any option may take the argument after it (a flag is never followed by one).
  return walkArgv(argv, () => true).flatMap((item) => {
    if ('word' in item) return [portable(item.word)];
    const { name, value } = item;
    if (name === 'results' || name === 'target') return [];
    if (value === undefined) return [...item.argv];
    return [name === 'lock' ? `--lock=${lockRefInBundle}` : `--${name}=${portable(value)}`];
  });
}

/** The run's options without the machine's paths: no folders, `lock` as the bundle names it, no `target`. */
export function portableOptions(options: Record<string, unknown>, lockRefInBundle: string): Record<string, unknown> {
  const { resultsDir: _r, argv: _a, target: _t, ...rest } = options;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest))
    out[k] = k === 'lock' ? lockRefInBundle : typeof v === 'string' && path.isAbsolute(v) ? path.basename(v) : v;
  return out;
}
