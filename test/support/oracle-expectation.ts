import type { Config } from '../../harness/options.ts';
import { ORACLE, ORACLE_COLUMNS } from '../../matrix/oracle.ts';
import { REMEDY_ORACLE, type RemedyScenarioId } from '../../matrix/remedy-oracle.ts';

/**
 * For the matrix's and the nightly job's fake runners: which oracle cell a run's Config is, from what the cell
 * sets (a remedy scenario by the --think, --watchdog, fault or restart option the fault table never sets).
 */
export function scenarioOf(c: Readonly<Config>): RemedyScenarioId {
  const fault = c.nemesis?.join(',') || 'none';
  if (fault === 'failover') return 'failover';
  if (fault === 'none') return c.watchdog ? 'long-work-watchdog' : 'long-work';
  if (fault === 'pause-holder') return 'pause-watchdog';
  if (fault === 'restart-empty') return c.redisPersistence === 'aof-always' ? 'restart-aof' : 'restart-delay';
  return c.fencing ? 'delay-write-fenced' : 'delay-write';
}

export const isRemedyRun = (c: Readonly<Config>) =>
  c.thinkMs === 2500 ||
  c.watchdog ||
  c.nemesis?.some((f) => f === 'failover' || f === 'delay-write') ||
  (c.nemesis?.includes('restart-empty') && (c.restartDelayMs > 0 || c.redisPersistence === 'aof-always'));

/** What the oracle expects of the cell a Config runs; a lock the oracle has no row for (a plugin) is expected safe. */
export function oracleExpectation(c: Readonly<Config>): string {
  if (!(c.lock in ORACLE)) return 'safe';
  const lock = c.lock as keyof typeof ORACLE;
  if (isRemedyRun(c)) return REMEDY_ORACLE[lock][scenarioOf(c)].expect;
  const col = ORACLE_COLUMNS.find(
    (col) => (col.faults.join(',') || 'none') === (c.nemesis?.join(',') || 'none') && col.fencing === c.fencing,
  );
  return col ? ORACLE[lock][col.id].expect : 'safe';
}
