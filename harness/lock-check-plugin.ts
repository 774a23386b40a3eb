import { HarnessError } from '../common/errors.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';

/**
 * The steps a plugin module (`lock-check ./my-lock.ts`) goes through before the protocol's steps, in order: its file
 * found and imported, then its default export checked against the LockStrategy interface. A broken plugin is told
 * which one refused it, as a failed protocol step is — the run's loader says `--lock=…`, which `lock-check` never took.
 */
export const PLUGIN_STEPS = {
  load: 'load the module',
  declare: 'its default export is a LockStrategy',
} as const;

/** Which of PLUGIN_STEPS a loader's refusal belongs to (workloads/load-strategy.ts words them). */
export function pluginStepOf(message: string): keyof typeof PLUGIN_STEPS {
  return / is not a LockStrategy: /.test(message) ? 'declare' : 'load';
}

/** The plugin at `lock`, loaded as a run loads it; a refusal (254) says the step and why, without the run's `--lock=`. */
export async function loadPluginForCheck(lock: string): Promise<ResolvedStrategy> {
  try {
    return await loadStrategy(lock);
  } catch (err) {
    if (!(err instanceof HarnessError)) throw err;
    const step = pluginStepOf(err.message);
    // "--lock=./x.ts: no such file" → "no such file"; "--lock=./x.ts is not a LockStrategy: a, b." → "a, b."
    const why = err.message.replace(step === 'declare' ? /^.*? is not a LockStrategy: / : `--lock=${lock}: `, '');
    throw new HarnessError(
      err.kind,
      `lock-check ${lock}: FAIL at step "${PLUGIN_STEPS[step]}": ${why}`,
      err.hint ? { hint: err.hint } : {},
    );
  }
}
