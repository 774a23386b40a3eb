import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HarnessError } from '../common/errors.ts';
import { isBuiltinLock, isPluginPath } from './lock-names.ts';
import { resolveStrategy, strategyProblems, type ResolvedStrategy } from './resolved-strategy.ts';
import { BUILTIN_STRATEGIES } from './strategies/registry.ts';

/** Resolve `--lock` to a module URL: a built-in name (the registry) or a user's plugin file. */
export function strategyModuleUrl(lock: string): string {
  if (isBuiltinLock(lock)) return BUILTIN_STRATEGIES[lock];
  if (isPluginPath(lock)) return pathToFileURL(path.resolve(lock)).href;
  throw new HarnessError('bad-arguments', `unknown lock "${lock}"`);
}

/**
 * Load `--lock`'s module once and resolve it (every default filled, frozen). Built-ins and plugins go the same
 * way; a plugin that doesn't fit the interface is a bad argument (exit 254), not a crash.
 */
export async function loadStrategy(lock: string): Promise<ResolvedStrategy> {
  const moduleUrl = strategyModuleUrl(lock);
  if (moduleUrl.startsWith('file:') && !fs.existsSync(new URL(moduleUrl)))
    throw new HarnessError('bad-arguments', `--lock=${lock}: no such file`);
  let mod: { default?: unknown };
  try {
    mod = await import(moduleUrl);
  } catch (err) {
    throw new HarnessError('bad-arguments', `--lock=${lock}: the module failed to load: ${(err as Error).message}`, {
      hint: 'see README, "Your own lock strategy"',
    });
  }
  const builtin = isBuiltinLock(lock);
  const problems = strategyProblems(mod.default, builtin);
  if (problems.length) {
    throw new HarnessError('bad-arguments', `--lock=${lock} is not a LockStrategy: ${problems.join('; ')}.`, {
      hint: 'see README, "Your own lock strategy", for a complete example',
    });
  }
  return resolveStrategy(mod.default as Parameters<typeof resolveStrategy>[0], { lock, moduleUrl, builtin });
}
