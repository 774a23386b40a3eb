import type { Config } from '../../harness/run-argv.ts';
import type { LivenessExpect, RemedyScenarioId } from '../../locks/oracle-cell.ts';
import { ORACLE, ORACLE_COLUMNS } from '../../matrix/oracle.ts';
import { REMEDY_ORACLE } from '../../matrix/remedy-oracle.ts';
import { MARGINS } from '../../matrix/margin-oracle.ts';
import type { MarginCell } from '../../locks/margin-cell.ts';

/** The margin cell a Config runs (matrix/margin-oracle.ts): its lock, its faults and its rate. */
export function marginOf(c: Readonly<Config>): MarginCell | undefined {
  return MARGINS.find(
    ({ lock, margin }) =>
      lock === c.lock &&
      margin.faults.join(',') === (c.nemesis?.join(',') || 'none') &&
      (margin.options.clockRate ?? 2) === c.clockRate,
  )?.margin;
}

/**
 * For the matrix's and the nightly job's fake runners: which oracle cell a run's Config is, from what the cell
 * sets (a remedy scenario by the --think, --watchdog, fault or restart option the fault table never sets).
 */
export function scenarioOf(c: Readonly<Config>): RemedyScenarioId {
  const fault = c.nemesis?.join(',') || 'none';
  if (fault === 'failover') return c.fencing ? 'failover-fenced' : 'failover';
  if (fault === 'none') return c.watchdog ? 'long-work-watchdog' : 'long-work';
  if (fault === 'pause-holder') return 'pause-watchdog';
  if (fault === 'restart-empty')
    return c.redisPersistence === 'aof-always'
      ? 'restart-aof'
      : c.retry === 'harness'
        ? 'restart-retry'
        : 'restart-delay';
  return c.fencing ? 'delay-write-fenced' : 'delay-write';
}

export const isRemedyRun = (c: Readonly<Config>) =>
  !marginOf(c) &&
  (c.thinkMs === 2500 ||
    c.watchdog ||
    c.retry === 'harness' ||
    c.nemesis?.some((f) => f === 'failover' || f === 'delay-write') ||
    (c.nemesis?.includes('restart-empty') && (c.restartDelayMs > 0 || c.redisPersistence === 'aof-always')));

/** What the oracle expects of the cell a Config runs; a lock the oracle has no row for (a plugin) is expected safe. */
export function oracleExpectation(c: Readonly<Config>): string {
  if (!(c.lock in ORACLE)) return 'safe';
  const lock = c.lock as keyof typeof ORACLE;
  const margin = marginOf(c);
  if (margin) return margin.cell.expect;
  if (isRemedyRun(c)) return REMEDY_ORACLE[lock][scenarioOf(c)].expect;
  const col = ORACLE_COLUMNS.find(
    (col) => (col.faults.join(',') || 'none') === (c.nemesis?.join(',') || 'none') && col.fencing === c.fencing,
  );
  return col ? ORACLE[lock][col.id].expect : 'safe';
}

/** The oracle's liveness expectation of the cell a Config runs (matrix/oracle.ts, LivenessExpectation), if any. */
export function oracleLiveness(c: Readonly<Config>): LivenessExpect | undefined {
  if (!(c.lock in ORACLE)) return undefined;
  const lock = c.lock as keyof typeof ORACLE;
  const margin = marginOf(c);
  if (margin) return margin.cell.liveness?.expect;
  const cell = isRemedyRun(c)
    ? REMEDY_ORACLE[lock][scenarioOf(c)]
    : ORACLE[lock][
        ORACLE_COLUMNS.find(
          (col) => (col.faults.join(',') || 'none') === (c.nemesis?.join(',') || 'none') && col.fencing === c.fencing,
        )?.id ?? 'no-fault'
      ];
  return cell.decided === 'measured' ? cell.liveness?.expect : undefined;
}

/**
 * For the fake runners' results: the `liveness` a run shows when it is as the oracle expects — a 3.1 s stall
 * where it expects one may show, none where it expects recovery — or nothing for a cell with no liveness expectation.
 */
export function livenessAsExpected(c: Readonly<Config>): { liveness?: unknown } {
  const e = oracleLiveness(c);
  if (e === undefined) return {};
  const stalled = e !== 'recovers';
  return {
    liveness: {
      recoveryMs: { median: stalled ? 2400 : 150, max: stalled ? 3100 : 300, unrecovered: 0 },
      longestStallMs: stalled ? 3100 : 0,
    },
  };
}
