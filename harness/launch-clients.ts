import type { Deferred, TeardownScope } from '../common/teardown-scope.ts';
import { Journal } from '../history/journal.ts';
import { runPath } from '../store/run-dir.ts';
import { ClientPool } from './client-pool.ts';
import { consoleLog, consoleStatus } from './console-log.ts';
import { LiveStats } from './live-stats.ts';
import type { Config } from './run-argv.ts';
import type { RunSite } from './run-site.ts';

/** The run's history and its client processes, launched: what `launchClients` gives the rest of the run. */
export interface LaunchedClients {
  journal: Journal;
  stats: LiveStats;
  pool: ClientPool;
  /** The journal's close: the sealed history takes it over on a normal end (seal-history.ts). */
  closeJournal: Deferred;
  /** The clients' stop while the cluster boots: the clients' stop once it is up takes it over (run.ts). */
  stopLaunched: Deferred;
}

/**
 * The history, its live stats, and the clients' processes, started while the cluster boots (their specs, with its
 * ports, follow: pool.start). Newest first: the `stop clients` step here covers a failure during the boot; once the
 * cluster is up runTest defers the same step again, so the clients die before their servers stop. Each waits for the
 * exits it causes (their pid files go with them).
 */
export function launchClients(
  config: Readonly<Config>,
  site: RunSite,
  scope: TeardownScope,
  log: (line: string) => void,
): LaunchedClients {
  const journal = new Journal(runPath(site.runDir, 'history'));
  const closeJournal = scope.defer('close journal', () => journal.close());
  const stats = new LiveStats(config.timeLimitS, log, log === consoleLog && consoleStatus.tty ? consoleStatus : null);
  journal.onOp((op) => stats.observe(op));
  const pool = clientPool(site, journal, log);
  const stopLaunched = scope.defer('stop clients', () => pool.killAndWait());
  pool.launch(config.concurrency);
  return { journal, stats, pool, closeJournal, stopLaunched };
}

/**
 * The run's client processes, their ops journalled (stamped by the client when it says when), clocks shimmed. A
 * client stamps with its own CLOCK_MONOTONIC, which a process-scope rate (clock-rate-client) fakes — slowed while the
 * rate holds, behind by the drift ever after — so each stamp is mapped back to the real instant by that client's
 * clock record before it is journalled: the history stays in real time order whatever a client's clock did.
 */
function clientPool({ runDir, pids, clocks }: RunSite, journal: Journal, log: (line: string) => void): ClientPool {
  const real = (at: bigint, slot: number | undefined) =>
    clocks && slot !== undefined ? clocks.realMonotonic(`client-${slot}`, at) : at;
  return new ClientPool(
    runDir,
    pids,
    (op, at, slot) => (at === undefined ? journal.append(op) : journal.appendStamped(op, real(at, slot))),
    clocks ? (slot) => clocks.env(`client-${slot}`) : undefined,
    log,
    (record) => journal.batch(record),
  );
}
