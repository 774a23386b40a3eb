/**
 * Which build of a lock in another language a run measured: its manifest (as written), a hash of every file its
 * command names (the interpreter, the script, a launcher), and the versions of the library packages a built-in row
 * installs. Two runs of a changed client — an edited script, an upgraded python3-kazoo — then differ in the record
 * and in one short fingerprint over all of it, which the report and the nightly comparison show.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResolvedStrategy } from '../resolved-strategy.ts';

/** Files bigger than this are named with their size, not hashed (a JVM's jar on the command line). */
const MAX_HASHED_BYTES = 256 << 20;

export interface ForeignLockRecord {
  /** The manifest file and its text's hash and content; null for `exec:<program>`. */
  manifest: { path: string; sha256: string; content: unknown } | null;
  command: string[];
  cwd: string;
  /** Every argument of the command that is a file (resolved from cwd, links followed), with its hash. */
  files: { arg: string; path: string; bytes: number; sha256: string | null }[];
  /** Debian packages of the lock library (a built-in row), with their installed versions. */
  packages: Record<string, string>;
  /** 12 hex digits of a hash over all of the above but the paths: equal iff the same lock build ran. */
  fingerprint: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

function fileOf(arg: string, cwd: string): ForeignLockRecord['files'][number] | null {
  const p = path.resolve(cwd, arg);
  let real: string;
  let st: fs.Stats;
  try {
    real = fs.realpathSync(p);
    st = fs.statSync(real);
  } catch {
    return null;
  }
  if (!st.isFile()) return null;
  let hash: string | null = null;
  if (st.size <= MAX_HASHED_BYTES) {
    try {
      hash = sha256(fs.readFileSync(real));
    } catch {
      hash = null; // not readable by us: named, not hashed
    }
  }
  return { arg, path: real, bytes: st.size, sha256: hash };
}

/** The record of `strategy`'s lock process, or null for a lock that is not one. `packages`: its library's versions. */
export function foreignLockRecord(
  strategy: Pick<ResolvedStrategy, 'foreign' | 'moduleUrl'>,
  packages: Record<string, string> = {},
): ForeignLockRecord | null {
  const cmd = strategy.foreign;
  if (!cmd) return null;
  let manifest: ForeignLockRecord['manifest'] = null;
  if (strategy.moduleUrl.endsWith('.json')) {
    const file = fileURLToPath(strategy.moduleUrl);
    try {
      const text = fs.readFileSync(file, 'utf8');
      manifest = { path: file, sha256: sha256(text), content: JSON.parse(text) };
    } catch {
      manifest = null;
    }
  }
  const files = cmd.command.flatMap((arg) => fileOf(arg, cmd.cwd) ?? []);
  const fingerprint = sha256(
    JSON.stringify({
      manifest: manifest?.sha256 ?? null,
      command: cmd.command,
      files: files.map((f) => [f.arg, f.sha256 ?? `${f.bytes} bytes`]),
      packages,
    }),
  ).slice(0, 12);
  return { manifest, command: [...cmd.command], cwd: cmd.cwd, files, packages, fingerprint };
}
