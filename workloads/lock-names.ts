import { BUILTIN_STRATEGIES } from '../locks/registry.ts';

/** The built-in lock strategies' names, in the registry's order (the order the matrix shows them). */
export type BuiltinLock = keyof typeof BUILTIN_STRATEGIES;
export const BUILTIN_LOCKS = Object.keys(BUILTIN_STRATEGIES) as readonly BuiltinLock[];

export function isBuiltinLock(lock: string): lock is BuiltinLock {
  return Object.hasOwn(BUILTIN_STRATEGIES, lock);
}
