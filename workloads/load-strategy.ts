import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HarnessError } from '../common/errors.ts';
import { isBuiltinLock } from './lock-names.ts';
import { isForeignRef, lockRef } from './lock-ref.ts';
import { resolveStrategy, strategyProblems, type ResolvedStrategy } from './resolved-strategy.ts';
import { BUILTIN_STRATEGIES } from '../locks/registry.ts';
import { readForeignLock } from './foreign/manifest.ts';

/** Resolve `--lock` to a module URL: a built-in name (the registry) or a user's plugin file. */
export function strategyModuleUrl(lock: string): string {
  const ref = lockRef(lock);
  if (ref.kind === 'builtin') return BUILTIN_STRATEGIES[ref.name];
  if (ref.kind === 'plugin') return pathToFileURL(path.resolve(ref.path)).href;
  throw new HarnessError('bad-arguments', `unknown lock "${lock}"`);
}

/**
 * Load `--lock`'s module once and resolve it (every default filled, frozen). Built-ins and plugins go the same
 * way; a plugin that doesn't fit the interface is a bad argument (exit 254), not a crash.
 */
export async function loadStrategy(lock: string): Promise<ResolvedStrategy> {
  if (isForeignRef(lockRef(lock))) return loadForeignLock(lock);
  const moduleUrl = strategyModuleUrl(lock);
  // A built-in foreign row (kazoo, curator, …): its manifest in locks/, read like a user's, resolved as a built-in.
  if (isBuiltinLock(lock) && moduleUrl.endsWith('.json')) return loadForeignLock(lock, fileURLToPath(moduleUrl), true);
  if (moduleUrl.startsWith('file:') && !fs.existsSync(new URL(moduleUrl)))
    throw new HarnessError('bad-arguments', `--lock=${lock}: no such file`);
  let mod: { default?: unknown };
  try {
    mod = await loadedWithin(import(moduleUrl) as Promise<{ default?: unknown }>, lock);
  } catch (err) {
    if (err instanceof HarnessError) throw err;
    throw new HarnessError('bad-arguments', `--lock=${lock}: the module failed to load: ${(err as Error).message}`, {
      hint: 'see docs/your-lock.md',
    });
  }
  const builtin = isBuiltinLock(lock);
  const problems = strategyProblems(mod.default, builtin);
  if (problems.length) {
    throw new HarnessError('bad-arguments', `--lock=${lock} is not a LockStrategy: ${problems.join('; ')}.`, {
      hint: 'see docs/your-lock.md for a complete example',
    });
  }
  return resolveStrategy(mod.default as Parameters<typeof resolveStrategy>[0], { lock, moduleUrl, builtin });
}

/** How long a plugin module may take to load (its top-level code: imports, a top-level await) before it is refused. */
export const PLUGIN_LOAD_TIMEOUT_MS = 30_000;

/** The refusals of the modules still loading, told once when the event loop drains (one listener for them all). */
const stillLoading = new Set<() => void>();

/**
 * Registers `drained` for the event loop's draining (the returned function unregisters it): one `beforeExit` listener serves every module still loading, so
 * `--lock=all` loading its rows at once adds one listener, not one a row (Node warned of a leak at 11).
 */
export function whenDrained(drained: () => void): () => void {
  if (stillLoading.size === 0) process.once('beforeExit', tellDrained);
  stillLoading.add(drained);
  return () => {
    stillLoading.delete(drained);
    if (stillLoading.size === 0) process.off('beforeExit', tellDrained);
  };
}

function tellDrained(): void {
  const waiting = [...stillLoading];
  stillLoading.clear();
  for (const refuse of waiting) refuse();
}

/**
 * The plugin's module once it has loaded, or a refusal (254): after PLUGIN_LOAD_TIMEOUT_MS, or at once when the event
 * loop drains while it is still loading — a top-level `await` on a promise nothing will ever settle. Without this the
 * process found nothing left to do and exited 0 with no run, which CI reads as VALID.
 */
function loadedWithin<T>(loading: Promise<T>, lock: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const refuse = (why: string) =>
      reject(
        new HarnessError('bad-arguments', `--lock=${lock}: the module never finished loading: ${why}.`, {
          hint: 'a top-level await in the plugin must settle; connect to servers in connect(), not at import',
        }),
      );
    const timer = setTimeout(
      () => refuse(`still loading after ${PLUGIN_LOAD_TIMEOUT_MS / 1000} s`),
      PLUGIN_LOAD_TIMEOUT_MS,
    );
    timer.unref();
    const drained = () => refuse('it awaits something that can never settle (nothing else was left to run)');
    const loaded = whenDrained(drained);
    const done = () => {
      clearTimeout(timer);
      loaded();
    };
    loading.then(
      (m) => (done(), resolve(m)),
      (err: unknown) => (done(), reject(err)),
    );
  });
}

/**
 * A lock in another language: its manifest (or exec: form) checked and resolved by the same rules as a plugin's
 * declaration. The clients start its command; `moduleUrl` names the manifest (or program) for the record.
 */
export function loadForeignLock(lock: string, manifestPath = lock, builtin = false): ResolvedStrategy {
  const read = readForeignLock(manifestPath);
  if ('problems' in read) {
    throw new HarnessError('bad-arguments', `--lock=${lock}: ${read.problems.join('; ')}.`, {
      hint: 'see docs/protocol.md for a complete manifest',
    });
  }
  const { facts, command, manifest } = read.lock;
  const moduleUrl = pathToFileURL(manifest ?? command.command[0]).href;
  return resolveStrategy(
    { ...facts, connect: () => Promise.reject(new Error('a foreign lock connects in its client')) },
    {
      lock,
      moduleUrl,
      builtin,
      foreign: command,
    },
  );
}
