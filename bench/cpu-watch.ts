/**
 * The CPU watch of `bench throughput` (bench/process-cpu.ts's `watchRun` forks it): every `everyMs`, while the
 * run under `runsOf` has its history begun (with --nemesis=none nothing is journalled before the clients start)
 * and all of its `clients` client processes alive, a snapshot of the harness, its clients and its servers; on
 * `stop`, the CPU from the first such snapshot to the last (a CpuWindow: each process up to its last reading) —
 * the client phase with every client at work, to within one period at each end. Not the ramp, while clients are
 * still being forked, nor the stop, while they finish and exit one by one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CpuWindow, snapshot, trackedFromPidDirs, type WatchReply, type WatchRequest } from './process-cpu.ts';
import { runPath } from '../store/run-dir.ts';

const window = new CpuWindow();
let timer: NodeJS.Timeout | undefined;

const send = (m: WatchReply, then: () => void = () => {}) => process.send?.(m, then);

/** A client's own pid record (`client-<slot>`), not its foreign lock process's (`client-<slot>-lock-<pid>`). */
const CLIENT_RECORD = /^client-\d+\.json$/;

function liveClients(pidDirs: string[]): number {
  let n = 0;
  for (const d of pidDirs) {
    try {
      n += fs.readdirSync(d).filter((f) => CLIENT_RECORD.test(f)).length;
    } catch {
      // not made yet, or removed
    }
  }
  return n;
}

process.on('message', (m: WatchRequest) => {
  if (m.type === 'watch') {
    const runs = () =>
      fs.existsSync(m.runsOf)
        ? fs
            .readdirSync(m.runsOf, { withFileTypes: true })
            .filter((e) => e.isDirectory())
            .map((e) => path.join(m.runsOf, e.name))
        : [];
    timer = setInterval(() => {
      const dirs = runs();
      const begun = dirs.some((d) => (fs.statSync(runPath(d, 'history'), { throwIfNoEntry: false })?.size ?? 0) > 0);
      if (!begun) return;
      const pidDirs = dirs.map((d) => path.join(d, 'pids'));
      if (liveClients(pidDirs) < m.clients) return;
      window.add(snapshot([...trackedFromPidDirs(pidDirs), { pid: m.harnessPid, role: 'harness' }]));
    }, m.everyMs);
    send({ type: 'watching' });
  }
  if (m.type === 'stop') {
    clearInterval(timer);
    send(
      {
        type: 'window',
        share: window.share(),
        fromNs: String(window.fromNs ?? 0n),
        toNs: String(window.toNs ?? 0n),
      },
      () => process.exit(0),
    );
  }
});
process.on('disconnect', () => process.exit(3));
