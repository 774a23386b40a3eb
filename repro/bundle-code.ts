import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { EXEC_PREFIX, isPathRef, lockRef } from '../workloads/lock-ref.ts';
import { BUNDLE_FILES, type BundleJson } from './bundle-format.ts';

/**
 * What a bundle would run of its own: a received bundle is data until its user says otherwise. Loading a plugin
 * runs its top-level code in the harness and in every client, as whoever replays (audit R5), so `replay` names each
 * file with its hash and goes on only with `--trust-bundle-code` (nightly: a trust file, known-bugs.ts). And a
 * bundle may load only its own declared lock, inside itself — refused even with trust: a bundle declaring the
 * built-in `redis` whose scenario imports a hidden module under `lock/`, an absolute path or a `../` path is lying about itself.
 */
export interface BundleCode {
  /** The lock the scenario loads, as the bundle names it: a built-in name, `lock/<plugin>`, `exec:lock/<program>`. */
  lock: string;
  /** Every file of the bundle's lock/ folder, relative to the bundle, with its sha256: what trusting it means. */
  code: { file: string; sha256: string }[];
}

/** The bundle's code and the lock its scenario loads, or why the bundle is refused whatever the trust. */
export function bundleCode(dir: string, json: BundleJson, scenarioLock: string | null): BundleCode | string {
  const root = fs.realpathSync(dir);
  const files = lockFiles(root);
  if (typeof files === 'string') return files;
  const loads = scenarioLock ?? json.lock.name;
  const ref = lockRef(loads);
  if (json.lock.kind === 'builtin') {
    if (ref.kind !== 'builtin' || loads !== json.lock.name)
      return `it declares the built-in lock ${json.lock.name}, but its ${BUNDLE_FILES.scenario} loads ${loads}: a bundle of a built-in lock runs no code of its own`;
    return { lock: loads, code: [] };
  }
  const named = ref.kind === 'exec' ? ref.program : isPathRef(ref) ? ref.path : null;
  if (named === null || !scenarioLock)
    return `it declares the lock ${json.lock.file}, but its ${BUNDLE_FILES.scenario} loads ${loads}`;
  const target = path.resolve(root, named);
  if (path.relative(root, target).startsWith('..') || path.isAbsolute(path.relative(root, target)))
    return `its ${BUNDLE_FILES.scenario} loads a path outside the bundle: ${named}`;
  const rel = path.relative(root, target).split(path.sep).join('/');
  if (rel !== json.lock.file)
    return `its ${BUNDLE_FILES.scenario} loads ${rel}, not the lock.file it declares (${json.lock.file})`;
  const escape = json.lock.kind === 'manifest' ? manifestEscape(root, target) : null;
  if (escape) return escape;
  return { lock: ref.kind === 'exec' ? `${EXEC_PREFIX}${rel}` : rel, code: files };
}

/**
 * Why a bundle's manifest reaches outside the bundle, or null: `repro` writes none with a `cwd` (its programs sit
 * beside it), and a relative argument of its command must stay in lock/. An absolute program (an interpreter,
 * `/usr/bin/python3`) is the machine's, not the bundle's, and is named with the code the user is asked to trust.
 */
function manifestEscape(root: string, manifestFile: string): string | null {
  let manifest: { cwd?: unknown; command?: unknown };
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as typeof manifest;
  } catch (err) {
    return `its manifest cannot be read: ${(err as Error).message}`;
  }
  if (manifest.cwd !== undefined) return "its manifest sets `cwd`: a bundle's lock runs from its own lock/ folder";
  const lockDir = path.join(root, BUNDLE_FILES.lock);
  const args = Array.isArray(manifest.command) ? manifest.command.filter((a) => typeof a === 'string') : [];
  const out = args.find(
    (a: string) =>
      !path.isAbsolute(a) &&
      a.split(/[\\/]/).includes('..') &&
      path.relative(lockDir, path.resolve(path.dirname(manifestFile), a)).startsWith('..'),
  );
  return out ? `its manifest's command names a path outside the bundle: ${out}` : null;
}

/**
 * Every file under the bundle's lock/ folder with its sha256, or why not: a link (to anywhere) or anything but a
 * file or folder is refused — after `realpath` nothing in a bundle may lead outside it.
 */
function lockFiles(root: string): BundleCode['code'] | string {
  const out: BundleCode['code'] = [];
  const walk = (rel: string): string | null => {
    const st = fs.lstatSync(path.join(root, rel), { throwIfNoEntry: false });
    if (!st) return null;
    if (st.isSymbolicLink()) return `${rel} is a link: a bundle holds its own files, and nothing that leads outside it`;
    if (st.isFile()) {
      const sha256 = crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(root, rel)))
        .digest('hex');
      out.push({ file: rel, sha256 });
      return null;
    }
    if (!st.isDirectory()) return `${rel} is neither a file nor a folder`;
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const why = walk(`${rel}/${name}`);
      if (why) return why;
    }
    return null;
  };
  return walk(BUNDLE_FILES.lock) ?? out;
}

/**
 * The refusal of a replay that would run a bundle's code without the user's word (exit 254, nothing started), or
 * null: no code, or trusted.
 */
export function untrustedCode(
  input: { name: string; code: BundleCode['code'] },
  opts: { trusted: boolean; user: string },
): HarnessError | null {
  if (!input.code.length || opts.trusted) return null;
  const files = input.code.map((c) => `${c.file} (sha256 ${c.sha256.slice(0, 12)}…)`).join(', ');
  return new HarnessError(
    'bad-arguments',
    `replay ${input.name}: this bundle runs its own code as ${opts.user}: ${files}. Nothing was started.`,
    {
      hint: 'read those files first; to run them, pass --trust-bundle-code (or replay with --lock=<a lock of yours>) — docs/reproductions.md',
    },
  );
}
