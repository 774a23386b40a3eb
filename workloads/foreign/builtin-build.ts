import { execFile } from 'node:child_process';
import { HarnessError } from '../../common/errors.ts';
import type { ResolvedStrategy } from '../resolved-strategy.ts';
import { FOREIGN_BUILTINS } from '../../locks/registry.ts';

/** How long one build may take: Go's first build of etcd's client took 80–100 s here on 2 busy cores. */
const BUILD_TIMEOUT_MS = 600_000;

/** The requirement of `lock`'s library when it is a built-in foreign row (kazoo, curator, …), else null. */
export function lockLibraryOf(lock: string) {
  return Object.hasOwn(FOREIGN_BUILTINS, lock) ? FOREIGN_BUILTINS[lock as keyof typeof FOREIGN_BUILTINS] : null;
}

/**
 * Compile a built-in foreign row's glue before any client starts (`<command> --build`: the launcher's own cached
 * build, a no-op once the machine has it). A failure is a missing dependency (exit 254) with the compiler's words.
 */
export async function buildBuiltinLock(
  lock: string,
  strategy: ResolvedStrategy,
  log: (line: string) => void,
): Promise<void> {
  if (!lockLibraryOf(lock)?.compiled || !strategy.foreign) return;
  const [program, ...args] = strategy.foreign.command;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) =>
    execFile(
      program,
      [...args, '--build'],
      { cwd: strategy.foreign!.cwd, timeout: BUILD_TIMEOUT_MS, maxBuffer: 4 << 20 },
      (err, _stdout, stderr) => {
        if (!err) return resolve();
        reject(
          new HarnessError(
            'missing-dependency',
            `--lock=${lock}: building its glue failed (${err.message.split('\n')[0]}):\n${stderr.trim().slice(-2000)}`,
            {
              hint: `run it by hand to see why: (cd ${strategy.foreign!.cwd} && ${program} ${[...args, '--build'].join(' ')})`,
            },
          ),
        );
      },
    ),
  );
  const ms = Math.round(performance.now() - t0);
  if (ms > 2000) log(`fencepost: built the ${lock} glue in ${(ms / 1000).toFixed(1)} s (cached for the next runs)`);
}
