import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One goal of a benchmark, as measured: what the `all` table and the JSON show. */
export interface Goal {
  /** What was measured, e.g. "local full-cluster boot (median of 3)". */
  what: string;
  /** The goal as a person reads it, e.g. "< 5000 ms". */
  goal: string;
  /** The number, with its unit. */
  measured: string;
  /** `skipped` when it could not be measured here (no Docker engine); `why` then says so. */
  met: boolean | 'skipped';
  why?: string;
}

/** What a benchmark's `run(args)` returns: its goals and its raw data (written as JSON). */
export interface BenchOutcome {
  benchmark: string;
  goals: Goal[];
  data: unknown;
}

/** The machine a number was measured on; numbers without it mean little (2 cores shared with other work…). */
export function machine(): { cpus: number; memGiB: number; node: string; platform: string; loadavg: number[] } {
  return {
    cpus: os.cpus().length,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** Writes `<dir>/<benchmark>-<timestamp>.json` and returns its path. */
export function saveOutcome(outcome: BenchOutcome, dir = path.join('results', 'bench')): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${outcome.benchmark}-${new Date().toISOString().replace(/:/g, '-')}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({ ...outcome, machine: machine(), at: new Date().toISOString() }, null, 2) + '\n',
  );
  return file;
}

export function verdictOf(g: Goal): string {
  return g.met === 'skipped' ? 'skipped' : g.met ? 'met' : 'MISSED';
}

/** The goals as a table, one row each, prefixed with the benchmark's name when given. */
export function goalsTable(rows: { benchmark: string; goal: Goal }[]): string {
  const cells = rows.map(({ benchmark, goal: g }) => [
    benchmark,
    g.what,
    g.goal,
    g.measured,
    verdictOf(g) + (g.why ? ` (${g.why})` : ''),
  ]);
  const header = ['benchmark', 'measured', 'goal', 'result', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
