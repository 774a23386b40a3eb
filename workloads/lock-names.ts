import { LOCK_ROWS, type BuiltinLock } from '../locks/registry.ts';

/** The built-in locks' names, in the registry's order (the order the matrix shows them). */
export type { BuiltinLock };
export const BUILTIN_LOCKS = Object.keys(LOCK_ROWS) as readonly BuiltinLock[];

export function isBuiltinLock(lock: string): lock is BuiltinLock {
  return Object.hasOwn(LOCK_ROWS, lock);
}
