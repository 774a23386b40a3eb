import type { Shutdown } from '../common/shutdown.ts';
import type { TeardownScope } from '../common/teardown-scope.ts';
import type { Nemesis, NemesisEnv } from '../nemesis/nemesis.ts';
import { writeTest } from '../store/run-dir.ts';
import type { StoredTestJson } from '../store/test-json.ts';

/** Which nemesis strikes: the fault schedule's (nemesis/create-nemesis.ts) or a scenario's script (driven-clients.ts). */
export type NemesisOf = (env: NemesisEnv) => Nemesis;

/**
 * The nemesis of the run, its skipped faults on the test record, its heal deferred before its setup. On a signal or an
 * error (shutdown.reason set) the heal owes the run nothing: no waiting out a --restart-delay.
 */
export async function startNemesis(
  nemesisOf: NemesisOf,
  env: NemesisEnv,
  run: { runDir: string; test: StoredTestJson },
  scope: TeardownScope,
  shutdown: Shutdown,
): Promise<Nemesis> {
  const nemesis = nemesisOf(env);
  if (Object.keys(nemesis.skipped).length) {
    run.test.skippedFaults = { ...nemesis.skipped };
    writeTest(run.runDir, run.test);
  }
  scope.defer('heal nemesis', () => nemesis.heal({ interrupted: shutdown.reason !== null }));
  await nemesis.setup();
  return nemesis;
}
