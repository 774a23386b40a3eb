import { SLOW_FILE_S, SLOW_FOR_A_REASON } from './slow-for-a-reason.ts';

/**
 * What a vitest JSON report (`--reporter=json`) says about time: each tier's wall (first file start → last file end)
 * and summed file time, and the slowest files with their seconds — beside an earlier report's when one is given
 * (before → after) and with the reason of a file that stays slow for one (slow-for-a-reason.ts).
 */
export interface TimedReport {
  testResults: { name: string; startTime: number; endTime: number }[];
}

export type Tier = 'unit' | 'servers' | 'browser' | 'docker';

/** vitest.config.ts's rule, by path. */
export function tierOf(file: string): Tier {
  if (file.startsWith('test/docker/')) return 'docker';
  if (file.includes('.browser.test.')) return 'browser';
  if (file.startsWith('test/integration/') || file.includes('.servers.test.')) return 'servers';
  return 'unit';
}

/** Each file's seconds, by its path relative to the checkout (vitest reports absolute paths from wherever it ran). */
export function fileSeconds(report: TimedReport): Map<string, number> {
  const root = rootOf(report);
  const out = new Map<string, number>();
  for (const t of report.testResults) out.set(t.name.slice(root.length), (t.endTime - t.startTime) / 1000);
  return out;
}

/**
 * The checkout a report ran in: the folder every file's path starts with (the files sit in several top folders, so
 * their longest common folder is the root). A report of one file takes that file's folder.
 */
export function rootOf(report: TimedReport): string {
  const names = report.testResults.map((t) => t.name);
  if (!names.length) return '';
  let prefix = names[0].slice(0, names[0].lastIndexOf('/') + 1);
  for (const n of names)
    while (!n.startsWith(prefix)) prefix = prefix.slice(0, prefix.slice(0, -1).lastIndexOf('/') + 1);
  return prefix;
}

export interface TierTime {
  tier: Tier;
  files: number;
  wallS: number;
  summedS: number;
}

export function tierTimes(report: TimedReport): TierTime[] {
  const root = rootOf(report);
  const tiers = new Map<Tier, { files: number; sum: number; start: number; end: number }>();
  for (const t of report.testResults) {
    const tier = tierOf(t.name.slice(root.length));
    const x = tiers.get(tier) ?? { files: 0, sum: 0, start: Infinity, end: 0 };
    x.files++;
    x.sum += t.endTime - t.startTime;
    // A file that ran nothing (all skipped) has no time of its own to place.
    if (t.endTime > t.startTime) {
      x.start = Math.min(x.start, t.startTime);
      x.end = Math.max(x.end, t.endTime);
    }
    tiers.set(tier, x);
  }
  return [...tiers].map(([tier, x]) => ({
    tier,
    files: x.files,
    wallS: x.end > x.start ? (x.end - x.start) / 1000 : 0,
    summedS: x.sum / 1000,
  }));
}

export interface FileRow {
  file: string;
  seconds: number;
  /** The same file's seconds in the earlier report; null when it was not there (a new file). */
  before: number | null;
  /** Why it stays slow, when it is one of SLOW_FOR_A_REASON; over SLOW_FILE_S without one: 'no reason recorded'. */
  reason: string | null;
}

/** The `count` slowest files of `after` (by its seconds), each with its `before` seconds when given. */
export function slowestFiles(after: TimedReport, count: number, before?: TimedReport): FileRow[] {
  const was = before ? fileSeconds(before) : new Map<string, number>();
  return [...fileSeconds(after)]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([file, seconds]) => ({
      file,
      seconds,
      before: was.get(file) ?? null,
      reason: SLOW_FOR_A_REASON[file]?.reason ?? (seconds > SLOW_FILE_S ? 'no reason recorded' : null),
    }));
}

/** Files over SLOW_FILE_S that have no reason, and files with one that took more than their recorded seconds. */
export function slowWithoutReason(report: TimedReport): string[] {
  const out: string[] = [];
  for (const [file, s] of fileSeconds(report)) {
    const known = SLOW_FOR_A_REASON[file];
    if (!known && s > SLOW_FILE_S) out.push(`${file}: ${s.toFixed(1)} s (over ${SLOW_FILE_S} s, no reason recorded)`);
    else if (known && s > known.seconds)
      out.push(`${file}: ${s.toFixed(1)} s (over the ${known.seconds} s its reason allows)`);
  }
  return out;
}

/** The plain text `npm run test:times` prints. */
export function timesText(after: TimedReport, count: number, before?: TimedReport): string {
  const lines: string[] = [];
  const was = before ? new Map(tierTimes(before).map((t) => [t.tier, t])) : null;
  for (const t of tierTimes(after)) {
    const b = was?.get(t.tier);
    const then = b ? ` (before: wall ${b.wallS.toFixed(0)} s, summed ${b.summedS.toFixed(0)} s)` : '';
    lines.push(
      `tier ${t.tier}: ${t.files} files, wall ${t.wallS.toFixed(0)} s, files summed ${t.summedS.toFixed(0)} s${then}`,
    );
  }
  lines.push('', `the ${count} slowest files (seconds${before ? ', before → after' : ''}):`);
  for (const r of slowestFiles(after, count, before)) {
    const s = before
      ? `${r.before === null ? '   new' : r.before.toFixed(1).padStart(6)} → ${r.seconds.toFixed(1).padStart(5)}`
      : r.seconds.toFixed(1).padStart(6);
    lines.push(`  ${s}  ${r.file}${r.reason ? `  — ${r.reason}` : ''}`);
  }
  const unexplained = slowWithoutReason(after);
  if (unexplained.length)
    lines.push('', 'slow without a reason (test/timing/slow-for-a-reason.ts):', ...unexplained.map((l) => `  ${l}`));
  return lines.join('\n');
}
