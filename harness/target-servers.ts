import { writeTest } from '../store/run-dir.ts';
import type { RunServers } from './run-servers.ts';
import type { TargetSession } from './target-session.ts';

/**
 * The servers of a target (--target): connected to and checked before anything starts (TargetSession.open), the lock's
 * servers for the run; fencepost boots only the resource's Postgres. Their keys are removed and counted at the end.
 */
export function targetServers(session: TargetSession): RunServers {
  return {
    needs: [],
    allowHosts: session.plan.spec.allowHosts ?? [],
    // Before the clients' stop is registered, so the removal of the run's keys on the target runs after they stopped.
    attach: (runDir, shutdown) => session.attach(runDir, shutdown),
    spec: () => ({ pg: true }),
    cluster: (local) => session.cluster(local),
    record: () => ({ target: session.record() }),
    clientTarget: () => session.clientTarget(),
    watch(journal) {
      session.abort.start(journal);
      return session.abort.aborted;
    },
    async end(test, runDir) {
      test.target = { ...test.target!, ...(await session.finish()) };
      writeTest(runDir, test);
    },
  };
}
