/**
 * The CPU watch of `bench throughput` (bench/process-cpu.ts's `watchRun` forks it): every `everyMs`, while the
 * run under `runsOf` has live clients and its history has its first op (with --nemesis=none nothing is journalled
 * before the clients start), a snapshot of the harness, its clients and its servers; on `stop`, the CPU between
 * the first and the last — the client phase, to within one period at each end.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  cpuBetween,
  snapshot,
  trackedFromPidDirs,
  type CpuSnapshot,
  type WatchReply,
  type WatchRequest,
} from './process-cpu.ts';
import { runPath } from '../store/run-dir.ts';

let first: CpuSnapshot | null = null;
let last: CpuSnapshot | null = null;
let timer: NodeJS.Timeout | undefined;

const send = (m: WatchReply, then: () => void = () => {}) => process.send?.(m, then);

process.on('message', (m: WatchRequest) => {
  if (m.type === 'watch') {
    const runs = () => (fs.existsSync(m.runsOf) ? fs.readdirSync(m.runsOf).map((d) => path.join(m.runsOf, d)) : []);
    timer = setInterval(() => {
      const dirs = runs();
      const begun = dirs.some((d) => (fs.statSync(runPath(d, 'history'), { throwIfNoEntry: false })?.size ?? 0) > 0);
      if (!begun) return;
      const tracked = trackedFromPidDirs(dirs.map((d) => path.join(d, 'pids')));
      if (!tracked.some((t) => t.role === 'client')) return;
      const s = snapshot([...tracked, { pid: m.harnessPid, role: 'harness' }]);
      first ??= s;
      last = s;
    }, m.everyMs);
    send({ type: 'watching' });
  }
  if (m.type === 'stop') {
    clearInterval(timer);
    const share = first && last && first !== last ? cpuBetween(first, last) : null;
    send({ type: 'window', share, fromNs: String(first?.atNs ?? 0n), toNs: String(last?.atNs ?? 0n) }, () =>
      process.exit(0),
    );
  }
});
process.on('disconnect', () => process.exit(3));
