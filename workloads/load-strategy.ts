import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HarnessError } from '../harness/errors.ts';
import { BUILTIN_LOCKS, isPluginPath } from './lock-names.ts';
import type { LockStrategy } from './strategy.ts';

/** Resolve `--lock` to a module URL: a built-in name or a user's plugin file. */
export function strategyModuleUrl(lock: string): string {
  if ((BUILTIN_LOCKS as readonly string[]).includes(lock)) return new URL(`./strategies/${lock}.ts`, import.meta.url).href;
  if (isPluginPath(lock)) return pathToFileURL(path.resolve(lock)).href;
  throw new HarnessError('bad-arguments', `unknown lock "${lock}"`);
}

/** Load and check a strategy module; a plugin that doesn't fit the interface is a bad argument, not a crash. */
export async function loadStrategy(lock: string): Promise<LockStrategy> {
  const url = strategyModuleUrl(lock);
  if (url.startsWith('file:') && !fs.existsSync(new URL(url))) throw new HarnessError('bad-arguments', `--lock=${lock}: no such file`);
  let mod: { default?: unknown };
  try {
    mod = await import(url);
  } catch (err) {
    throw new HarnessError('bad-arguments', `--lock=${lock}: the module failed to load: ${(err as Error).message}`, { hint: 'see README, "Your own lock strategy"' });
  }
  const s = mod.default as Partial<LockStrategy> | undefined;
  const problems: string[] = [];
  if (!s || typeof s !== 'object') problems.push('it has no default export object');
  else {
    if (typeof s.name !== 'string') problems.push('`name` must be a string');
    if (!Array.isArray(s.needs)) problems.push("`needs` must be an array of 'redis' | 'etcd' | 'zk'");
    if (!['monotonic', 'version', 'none'].includes(s.token as string)) problems.push("`token` must be 'monotonic', 'version' or 'none'");
    if (typeof s.connect !== 'function') problems.push('`connect(ctx)` must be a function');
  }
  // 'version' means "the resource's own version check is the fence": with it the harness switches the resource
  // to compare-and-set on the version column, so the lock under test would be judged by a fence it never built.
  if (s && typeof s === 'object' && s.token === 'version' && !(BUILTIN_LOCKS as readonly string[]).includes(lock)) {
    problems.push(
      "`token: 'version'` is reserved for the built-in postgres strategy, whose row version is the fence (the resource then checks versions instead of your lock); declare 'monotonic' if your lease carries a token that grows from each holder to the next, else 'none'",
    );
  }
  if (problems.length) {
    throw new HarnessError('bad-arguments', `--lock=${lock} is not a LockStrategy: ${problems.join('; ')}.`, { hint: 'see README, "Your own lock strategy", for a complete example' });
  }
  return s as LockStrategy;
}
