import { isBuiltinLock, type BuiltinLock } from './lock-names.ts';

/** The prefix of a lock given as a program to run (`--lock=exec:./my-lock`): a lock in another language, no manifest. */
export const EXEC_PREFIX = 'exec:';

/**
 * What `--lock` names, decided once, by one rule: the matrix (`all`), a built-in lock (TypeScript or a built-in foreign
 * row: `loadStrategy` tells them apart by their registry entry), a plugin module (a .ts/.js path), a foreign lock's
 * manifest (a .json path), a program (`exec:…`), or nothing known. Every reader of the string — the option's check,
 * the loader, the results folder's name, the matrix's switch, an expectations cell, a scenario — asks this.
 */
export type LockRef =
  | { kind: 'all' }
  | { kind: 'builtin'; name: BuiltinLock }
  | { kind: 'plugin'; path: string }
  | { kind: 'manifest'; path: string }
  | { kind: 'exec'; program: string }
  | { kind: 'unknown'; text: string };

export function lockRef(lock: string): LockRef {
  if (lock === 'all') return { kind: 'all' };
  if (isBuiltinLock(lock)) return { kind: 'builtin', name: lock };
  if (lock.startsWith(EXEC_PREFIX)) return { kind: 'exec', program: lock.slice(EXEC_PREFIX.length) };
  if (lock.endsWith('.json')) return { kind: 'manifest', path: lock };
  if (/^(\.{1,2}\/|\/)/.test(lock) || /\.[cm]?[jt]s$/.test(lock)) return { kind: 'plugin', path: lock };
  return { kind: 'unknown', text: lock };
}

/** A lock in another language given by the user: its manifest or its program (a built-in foreign row is `builtin`). */
export const isForeignRef = (r: LockRef): r is Extract<LockRef, { kind: 'manifest' | 'exec' }> =>
  r.kind === 'manifest' || r.kind === 'exec';

/** A lock given by a path (a plugin module or a manifest), which is read relative to where it was written. */
export const isPathRef = (r: LockRef): r is Extract<LockRef, { kind: 'plugin' | 'manifest' }> =>
  r.kind === 'plugin' || r.kind === 'manifest';
