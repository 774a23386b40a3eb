import fs from 'node:fs';
import path from 'node:path';
import { isAlive, startTime, stillOurs } from './pid-registry.ts';

/**
 * `<runDir>/harness.json`: pid and start time of the harness that owns the run. `cleanup --data` removes a run's
 * node data only once this process is gone (pid + start time, so a reused pid doesn't keep it alive).
 */
const FILE = 'harness.json';

export function recordRunOwner(runDir: string): void {
  fs.writeFileSync(path.join(runDir, FILE), JSON.stringify({ pid: process.pid, startTime: startTime(process.pid) }));
}

/** 'unknown': a run from before the record existed. */
export function runOwner(runDir: string): 'alive' | 'gone' | 'unknown' {
  let rec: { pid: number; startTime: number | null };
  try {
    rec = JSON.parse(fs.readFileSync(path.join(runDir, FILE), 'utf8'));
  } catch {
    return 'unknown';
  }
  // isAlive: a kill -9ed harness not yet reaped is a zombie, still in /proc with its start time.
  return stillOurs({ name: 'harness', pid: rec.pid, marker: runDir, startTime: rec.startTime ?? undefined }) && isAlive(rec.pid) ? 'alive' : 'gone';
}
