import fs from 'node:fs';
import path from 'node:path';
import { childPids, isAlive, pendingPids, PidRegistry, processState, stillOurs } from '../../common/pid-registry.ts';

export interface OurProcess {
  pid: number;
  state: string;
  cmd: string;
}

/**
 * Every live process that belongs to runs under `root`, found by what the runs themselves recorded: each run's pid
 * files (`<run>/pids/*.json`: servers, clients, and a pending record's process found by its working folder), with
 * the children of records that have them (Postgres backends). The command line and working folder alone are not
 * enough: when the checkout sits in a folder the service accounts cannot enter (a 0700 home, `mktemp -d`), node
 * homes move under the OS temp folder and a server names nothing under `root`. Those two still add what records
 * cannot name: the harness and npm themselves (their command line names `--results=<root>`).
 */
export function processesUnder(root: string): OurProcess[] {
  const real = fs.realpathSync(root);
  const pids = new Set(recordedPids(real));
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmd = cmdlineOf(Number(entry));
    let cwd = '';
    try {
      cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
    } catch {
      // kernel thread, gone, or another user's (then its pid file names it, if it is ours)
    }
    if (cmd.includes(real) || cmd.includes(root) || cwd.startsWith(real + path.sep)) pids.add(Number(entry));
  }
  return described(pids);
}

/**
 * Only the live processes the runs under `root` recorded in their pid files (servers, clients, Postgres backends):
 * what a test asserts is non-empty before it signals a run, so a "nothing left running" after it is not vacuous.
 */
export function recordedProcessesUnder(root: string): OurProcess[] {
  return described(new Set(recordedPids(fs.realpathSync(root))));
}

function recordedPids(realRoot: string): number[] {
  const pids: number[] = [];
  for (const reg of registriesUnder(realRoot)) {
    for (const rec of reg.list()) {
      const mains = rec.pending ? pendingPids(rec) : stillOurs(rec) ? [rec.pid] : [];
      for (const pid of mains) pids.push(pid, ...(rec.killChildren ? childPids(pid) : []));
    }
  }
  return pids;
}

function described(pids: Set<number>): OurProcess[] {
  const out: OurProcess[] = [];
  for (const pid of [...pids].sort((a, b) => a - b)) {
    if (pid === process.pid || !isAlive(pid)) continue;
    out.push({ pid, state: processState(pid) ?? '?', cmd: cmdlineOf(pid) });
  }
  return out;
}

/** The `pids` folders of every run under `dir` (as `cleanup` walks them: runs sit a few levels down). */
function registriesUnder(dir: string, depth = 0): PidRegistry[] {
  if (depth > 4) return [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory())
    .flatMap((e) =>
      e.name === 'pids'
        ? [new PidRegistry(path.join(dir, e.name))]
        : registriesUnder(path.join(dir, e.name), depth + 1),
    );
}

function cmdlineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** A fresh results folder under the repo's test-output/ (enterable by the postgres user, unlike mkdtemp's 0700). */
export function testResultsDir(name: string): string {
  const dir = path.resolve('test-output', `${name}-${process.pid}-${Date.now()}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The processes of ours still alive under `root`, each SIGKILLed so a failing test leaves nothing behind; the caller
 * asserts the list is empty (an `afterAll` of a file whose runs all end by themselves).
 */
export function killLeftovers(root: string): OurProcess[] {
  const left = processesUnder(root);
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  return left;
}
