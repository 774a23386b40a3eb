/**
 * `fencepost lock-check <plugin.ts | manifest | exec:program>`: the lock-client protocol's contract test, a user's first step
 * before a chaos run. It boots the lock's own servers (no Postgres, no faults), starts the command three times and
 * plays a fixed exchange against it: connect, acquire, a second process refused while the first holds the key,
 * release, the second then holds it (a larger token, when it declares tokens), renew (when it declares renewals),
 * an unreachable server answered with `error` rather than `not-acquired`, and close. Each step prints PASS or FAIL;
 * a failed step prints why and the exact lines of its exchange (passwords masked). Exit 0 when every step passed,
 * 1 otherwise, 254 for a manifest that does not validate or a plugin module that does not load (naming its step).
 */
import { createCluster, hostRequirements } from '../cluster/create-cluster.ts';
import { provision } from '../cluster/provision.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { createRunDir, runPath } from '../store/run-dir.ts';
import { loadForeignLock, loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { CLI } from '../common/cli-name.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBuiltinLock, lockLibraryOf } from '../workloads/foreign/builtin-build.ts';
import type { ForeignCommand } from '../workloads/foreign/manifest.ts';
import { isBuiltinLock } from '../workloads/lock-names.ts';
import { lockRef } from '../workloads/lock-ref.ts';
import { loadPluginForCheck } from './lock-check-plugin.ts';
import { installNpmLockFor } from '../locks/npm-lock-cache.ts';
import { BUILTIN_STRATEGIES, FOREIGN_BUILTINS, LOCK_ROWS } from '../locks/registry.ts';
import type { LockRow } from '../locks/lock-row.ts';
import { retireCluster } from './retire-cluster.ts';
import { CHECK_ACQUIRE_TIMEOUT_MS, runLockCheck } from './lock-check-steps.ts';
import { formatStep, type LockCheckStep } from './lock-check-transcript.ts';

/** `lock-check <plugin.ts | manifest | exec:program>`: the lock in `rest`, the cluster it starts on `backend`. */
export interface LockCheckConfig {
  readonly command: 'lock-check';
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly backend: 'local' | 'docker';
  readonly resultsDir: string;
}

/** The built-in foreign row `lock` names — its name (`curator`) or its manifest (`locks/curator/curator.json`) — or null. */
export function builtinForeignRow(lock: string): keyof typeof FOREIGN_BUILTINS | null {
  if (lockLibraryOf(lock)) return lock as keyof typeof FOREIGN_BUILTINS;
  const file = path.resolve(lock);
  const names = Object.keys(FOREIGN_BUILTINS) as (keyof typeof FOREIGN_BUILTINS)[];
  return names.find((n) => fileURLToPath(BUILTIN_STRATEGIES[n]) === file) ?? null;
}

/**
 * A strategy of this language — a built-in npm row (`lock-check redlock-v4`) or a user's plugin module
 * (`lock-check ./my-lock.ts`, loaded as `--lock=./my-lock.ts` loads it, a broken one refused naming the step:
 * lock-check-plugin.ts) — served as a lock process (workloads/foreign/strategy-process.ts): in a process of its own,
 * as a run's client is, so an error its library leaves unhandled ends that process, as it would end its user's — and
 * checked through the same steps as a foreign lock.
 */
async function servedStrategy(lock: string): Promise<ResolvedStrategy | null> {
  const ref = lockRef(lock);
  const builtinTs = ref.kind === 'builtin' && !BUILTIN_STRATEGIES[ref.name].endsWith('.json');
  if (!builtinTs && ref.kind !== 'plugin') return null;
  const strategy = ref.kind === 'plugin' ? await loadPluginForCheck(lock) : await loadStrategy(lock);
  if (!strategy.exclusive)
    throw new HarnessError(
      'bad-arguments',
      `lock-check ${lock}: it takes no lock (exclusive: false): nothing to check.`,
    );
  const shim = fileURLToPath(new URL('../workloads/foreign/strategy-process.ts', import.meta.url));
  const foreign: ForeignCommand = {
    command: [process.execPath, '--import', import.meta.resolve('tsx'), shim, strategy.moduleUrl],
    cwd: path.dirname(shim),
    expectToken: strategy.token === 'monotonic',
    renews: strategy.renews === true,
  };
  return { ...strategy, foreign };
}

/**
 * The lock `lock-check` was given, resolved: a strategy of this language served as a lock process (`served`: an npm
 * row, a plugin module), a built-in foreign row (`builtin`: its manifest under locks/), or a user's manifest or
 * program — each with the command its clients start.
 */
export async function checkedLock(
  lock: string,
): Promise<{ strategy: ResolvedStrategy; served: boolean; builtin: keyof typeof FOREIGN_BUILTINS | null }> {
  const served = await servedStrategy(lock);
  if (served) return { strategy: served, served: true, builtin: null };
  const builtin = builtinForeignRow(lock);
  const strategy = builtin
    ? loadForeignLock(lock, fileURLToPath(BUILTIN_STRATEGIES[builtin]), true)
    : loadForeignLock(lock);
  return { strategy, served: false, builtin };
}

export async function lockCheckCommand(config: Readonly<LockCheckConfig>, shutdown: Shutdown): Promise<number> {
  const [lock, ...extra] = config.rest;
  if (!lock || extra.length)
    throw new HarnessError(
      'bad-arguments',
      `lock-check takes one lock: a plugin module, a manifest or exec:<program>.`,
      {
        hint: `${CLI} lock-check ./locks/my-lock.json`,
      },
    );
  const { strategy, served, builtin } = await checkedLock(lock);
  const log = (line: string) => console.error(line);
  // A built-in row (by its name or its manifest under locks/): its library installed and its glue compiled first,
  // as a run does, so no connect waits for a compiler past its reply limit. A built-in strategy that needs no lock
  // server keeps its lock in the run's Postgres (advisory-lock): Postgres is started for it.
  const library = builtin ? lockLibraryOf(builtin)!.library : null;
  const pg = served && strategy.needs.length === 0;
  // Its pooler, when it reaches Postgres through one: a refused waiter gives up on the check's acquire budget.
  const pgbouncer =
    pg && strategy.pgbouncer ? { poolMode: strategy.pgbouncer, waitTimeoutMs: CHECK_ACQUIRE_TIMEOUT_MS } : undefined;
  const needs = [...strategy.needs, ...(pg ? (['pg'] as const) : []), ...(pgbouncer ? (['pgbouncer'] as const) : [])];
  await provision([...hostRequirements(config.backend, needs), ...(library ? [library] : [])], log, shutdown);
  if (builtin) await buildBuiltinLock(builtin, strategy, log);
  if (served && isBuiltinLock(lock)) await installNpmLockFor(lock, log);
  const runDir = createRunDir(config.resultsDir, 'lock-check');
  const pids = new PidRegistry(runPath(runDir, 'pids'));
  const cluster = await createCluster(
    config.backend,
    { ...strategy.servers, pg, ...(pgbouncer ? { pgbouncer } : {}), ...(strategy.dynamodb ? { dynamodb: true } : {}) },
    runDir,
    pids,
    log,
  );
  const stopCluster = shutdown.add('stop cluster', () => retireCluster(cluster, runDir));
  const t0 = performance.now();
  let steps: LockCheckStep[];
  try {
    await cluster.start();
    console.log(
      served
        ? `lock-check ${lock}: ${strategy.name}, served as a lock process (workloads/foreign/strategy-process.ts)`
        : `lock-check ${lock}: ${JSON.stringify(strategy.foreign!.command)} in ${strategy.foreign!.cwd}`,
    );
    console.log(
      `  servers: ${cluster.nodes.map((n) => n.name).join(', ')} (ready in ${Math.round(performance.now() - t0)} ms)`,
    );
    const busyWaits = isBuiltinLock(lock) ? (LOCK_ROWS[lock] as LockRow).busyAcquireWaits : undefined;
    steps = await runLockCheck(strategy, cluster, shutdown, pids, runDir, busyWaits);
  } finally {
    await stopCluster.run();
  }
  for (const s of steps) console.log(formatStep(s));
  const failed = steps.filter((s) => s.passed === false).length;
  const passed = steps.filter((s) => s.passed).length;
  console.log(
    failed
      ? `lock-check FAILED: ${failed} of ${steps.length} steps failed, ${passed} passed (logs: ${runPath(runDir, 'logs')})`
      : `lock-check passed: all ${steps.length} steps. Next: ${CLI} --lock=${lock}`,
  );
  return failed ? EXIT.invalid : EXIT.valid;
}
