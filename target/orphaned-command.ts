import fs from 'node:fs';

/**
 * The environment variable every injecting command of an exec adapter runs with: its value names the injection
 * (`<guard dir>/<id>`), and every process the command starts inherits it — a child, an `ssh`, one that called setsid —
 * so the guard finds them all from /proc, with nothing to be passed back to the harness first (the harness may die
 * between the spawn and any record of the pid).
 */
export const INJECTION_ENV = 'FENCEPOST_INJECTION';

/** The processes whose environment carries `INJECTION_ENV=marker`, ours excepted. */
function carrying(marker: string): number[] {
  const needle = `\0${INJECTION_ENV}=${marker}\0`;
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`\0${fs.readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(needle)) out.push(Number(entry));
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // exited meanwhile
  }
}

/**
 * Stops for good the injecting command `marker` names when its harness died while it ran: its bound (`timeoutMs`) was
 * the harness's timer, which died with it, so an orphaned `sig.sh STOP` still waiting (an SSH connection that hangs, a
 * slow CLI) could act at any later time — after the guard's last heal, with nothing left to undo it (issue 49: a
 * command that acted 7 s after it started, past its 5 s bound, left a real Redis stopped for good). Every process of
 * it is stopped, the search repeated until it finds none new (one may fork meanwhile), then all are killed. Returns
 * the pids it killed: none when the command had ended.
 */
export function stopOrphanedCommand(marker: string): number[] {
  const found = new Set<number>();
  for (let fresh = carrying(marker); fresh.length; fresh = carrying(marker).filter((p) => !found.has(p))) {
    for (const pid of fresh) {
      signal(pid, 'SIGSTOP');
      found.add(pid);
    }
  }
  for (const pid of found) signal(pid, 'SIGKILL');
  return [...found].sort((a, b) => a - b);
}
