import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { RUN_FILE_MODE } from '../../common/run-file-mode.ts';
import path from 'node:path';
import { HarnessError } from '../../common/errors.ts';
import { inCgroupArgv } from '../../common/cgroup2.ts';
import { childPids, isAlive, type PidRegistry } from '../../common/pid-registry.ts';
import { postgresBinDir } from '../provision.ts';
import { recordRunTempDir } from '../../common/run-owner.ts';
import { memoryDir } from '../../common/memory-dir.ts';
import type { Command, LaunchRequest, NodeHost, RunningServer, ServerUser } from '../node-host.ts';

interface Account {
  uid: number;
  gid: number;
  home: string;
}

function passwdEntry(user: string): Account | undefined {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) return undefined;
  const [, , uid, gid, , home] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), home: home || '/' };
}

/**
 * The whole environment of a server (or its set-up, initdb): what it needs to run and nothing of the harness's.
 * Why not the harness's environment: `ETCD_*` variables set etcd flags, `JAVA_TOOL_OPTIONS` loads agents into
 * ZooKeeper, `LD_LIBRARY_PATH` and `PG*` reach every server, and root's tokens would be readable by the service
 * account in /proc/<pid>/environ. PATH (to find `etcd`, `java`), a fixed locale, the account's own HOME, and the
 * node's own variables (the clock shim's) — as the Docker backend, which passes only the node's.
 */
export function serverEnvironment(
  harnessEnv: NodeJS.ProcessEnv,
  home: string | undefined,
  nodeEnv: Record<string, string>,
): Record<string, string> {
  return {
    PATH: harnessEnv.PATH || '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    ...((home ?? harnessEnv.HOME) ? { HOME: (home ?? harnessEnv.HOME)! } : {}),
    ...nodeEnv,
  };
}

/**
 * uid/gid of the account `user` when root; undefined when not root (the servers then run as the harness's own
 * user). Postgres needs its `postgres` user; the others use their package's user and else `nobody`.
 */
function serverAccount(user: ServerUser): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const found = passwdEntry(user);
  if (found) return found;
  if (user !== 'postgres') {
    const nobody = passwdEntry('nobody');
    if (nobody) return nobody;
    throw new HarnessError(
      'missing-dependency',
      `running as root, but there is neither a \`${user}\` nor a \`nobody\` user to run ${user} as.`,
      {
        hint: `create one: useradd --system --no-create-home ${user}`,
      },
    );
  }
  throw new HarnessError('missing-dependency', 'running as root, but there is no `postgres` user to run Postgres as.', {
    hint: 'install the postgresql package (it creates the user): apt-get install -y postgresql',
  });
}

/**
 * The command that starts `cmd` inside the cgroup2 folder `cgroup`: a root shell moves itself there (only root may
 * move a process out of the root cgroup), drops to the server's account with setpriv — the same uid, gid and no
 * supplementary groups that spawn's uid/gid options give — and execs the server, so its pid is the child's and
 * every socket it opens belongs to the cgroup.
 */
export function inCgroup(
  cgroup: string,
  cmd: Command,
  account: Account | undefined,
): { file: string; args: string[]; asAccount: undefined } {
  const drop = account ? ['setpriv', `--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--'] : [];
  const [file, ...args] = inCgroupArgv(cgroup, [...drop, cmd.file, ...cmd.args]);
  return { file, args, asAccount: undefined };
}

/** Whether every ancestor of `dir` lets other users through (o+x): the postgres user needs that. */
function traversableByOthers(dir: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) return false;
    if (d === path.dirname(d)) return true;
  }
}

/**
 * The local backend's host: servers are child processes of the harness, spawned detached (their own process
 * group) so a Ctrl-C in the terminal reaches only the harness, which then stops them in order — resume first,
 * then terminate — instead of each server racing its own shutdown while some are still SIGSTOPped. Every pid is
 * recorded in the run's PidRegistry for `cleanup`.
 */
export class ProcessHost implements NodeHost {
  /** Set-up processes still running, per node (initdb and the postgres --boot it forks). */
  private readonly setups = new Map<string, Set<ChildProcess>>();
  private readonly accounts = new Map<ServerUser, Account | undefined>();

  constructor(private readonly registry: PidRegistry) {}

  account(user: ServerUser): Account | undefined {
    if (!this.accounts.has(user)) this.accounts.set(user, serverAccount(user));
    return this.accounts.get(user);
  }

  canEnter(_user: ServerUser, dir: string): boolean {
    return traversableByOthers(dir);
  }

  postgresBinDir(): string {
    return postgresBinDir();
  }

  ownDir(dir: string): void {
    recordRunTempDir(this.registry.dir, dir);
  }

  memoryDir(): string | null {
    return memoryDir();
  }

  async launch(req: LaunchRequest): Promise<RunningServer> {
    const account = req.cmd.user ? this.account(req.cmd.user) : undefined;
    const log = fs.openSync(req.logFile, 'a', RUN_FILE_MODE);
    // Postgres backends call setsid(): only the parent pid links them to the postmaster.
    const withChildren = req.kind === 'pg';
    this.registry.intend(req.name, req.dir, req.cwd, withChildren);
    const { file, args, asAccount } = req.cgroup
      ? inCgroup(req.cgroup, req.cmd, account)
      : { file: req.cmd.file, args: req.cmd.args, asAccount: account };
    const child = spawn(file, args, {
      cwd: req.cwd,
      detached: true,
      stdio: ['ignore', log, log],
      env: serverEnvironment(process.env, account?.home, req.env),
      uid: asAccount?.uid,
      gid: asAccount?.gid,
    });
    fs.closeSync(log);
    const exited = new Promise<string>((resolve) => {
      child.once('exit', (code, signal) => {
        this.registry.remove(req.name);
        resolve(signal ? `killed by ${signal}` : `exited with code ${code}`);
      });
      child.once('error', (err) => {
        this.registry.remove(req.name);
        resolve(`could not be started: ${err.message}`);
      });
    });
    if (child.pid) this.registry.add({ name: req.name, pid: child.pid, marker: req.dir, killChildren: withChildren });
    const pids = () =>
      child.pid && child.exitCode === null && child.signalCode === null
        ? [child.pid, ...(withChildren ? childPids(child.pid) : [])]
        : [];
    const signalAll = (signal: NodeJS.Signals, list = pids()) => {
      for (const pid of list) {
        if (!isAlive(pid)) continue;
        try {
          process.kill(pid, signal);
        } catch {
          // raced with exit
        }
      }
    };
    return {
      exited,
      pids,
      async pause() {
        signalAll('SIGSTOP');
      },
      async resume() {
        signalAll('SIGCONT');
      },
      async signal(signal) {
        try {
          child.kill(signal);
        } catch {
          // gone
        }
      },
      async kill() {
        // Children first: a SIGKILLed postmaster leaves its backends to notice on their own, which takes a while.
        const all = pids();
        signalAll('SIGKILL', all.slice(1).concat(all.slice(0, 1)));
      },
    };
  }

  /**
   * Detached into its own process group so that a Ctrl-C during set-up can kill it together with whatever it
   * forked; registered for `cleanup` like the server itself.
   */
  runSetup(name: string, dir: string, cmd: Command, cwd: string): Promise<void> {
    const account = cmd.user ? this.account(cmd.user) : undefined;
    return new Promise((resolve, reject) => {
      const record = `${name}-setup`;
      this.registry.intend(record, path.join(dir, 'data'), cwd, true);
      const child = spawn(cmd.file, cmd.args, {
        cwd,
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: serverEnvironment(process.env, account?.home, {}),
        uid: account?.uid,
        gid: account?.gid,
      });
      const mine = this.setups.get(name) ?? new Set();
      this.setups.set(name, mine.add(child));
      if (child.pid)
        this.registry.add({ name: record, pid: child.pid, marker: path.join(dir, 'data'), killChildren: true });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      child.once('error', (err) => {
        mine.delete(child);
        this.registry.remove(record);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        mine.delete(child);
        this.registry.remove(record);
        if (code === 0) resolve();
        else
          reject(new Error(stderr.trim() || `${cmd.file} ${signal ? `killed by ${signal}` : `exited with ${code}`}`));
      });
    });
  }

  cancelSetups(name: string): void {
    for (const child of this.setups.get(name) ?? []) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
