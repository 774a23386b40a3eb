import type { NodeKind } from './node.ts';

/**
 * The OS account a server runs as when the harness is root: Postgres refuses root, and the others get the
 * account their Debian package would give them, so a server's bug or a client who gets in (Redis `CONFIG SET
 * dir`) acts as that account, not as root.
 */
export type ServerUser = 'postgres' | 'redis' | 'valkey' | 'etcd' | 'zookeeper';

/** How a server is started: the same command line whatever runs it (paths are the same inside a container). */
export interface Command {
  file: string;
  args: string[];
  /** The OS account to run as (see ServerUser). Absent = the harness's own. */
  user?: ServerUser;
}

export interface LaunchRequest {
  name: string;
  kind: NodeKind;
  /** The node's folder under the run dir (data, config files); it must be the same path wherever the server runs. */
  dir: string;
  logFile: string;
  cmd: Command;
  env: Record<string, string>;
  cwd: string;
  /**
   * A cgroup2 folder the server must be in before it opens a socket (server partitions match packets by the
   * sender's cgroup). Only the local backend honours it; the run refuses server partitions on the others.
   */
  cgroup?: string;
}

/**
 * One launched server process (a child process, or a container with it as its main process).
 * Contract: `exited` resolves once — with how it ended ("killed by SIGKILL", "exited with code 1") — when the
 * server and everything it forked are gone; `kill` and `signal` never throw for a server that already ended.
 */
export interface RunningServer {
  readonly exited: Promise<string>;
  pids(): number[];
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Ask for a graceful stop (the caller waits on `exited` and escalates to `kill`). */
  signal(signal: NodeJS.Signals): Promise<void>;
  /** SIGKILL everything of the server; `exited` resolves when it is gone. */
  kill(): Promise<void>;
}

/**
 * Where a node's processes run — the one thing a backend decides. The servers' command lines, set-up and
 * readiness probes (servers/*.ts) are the same for every backend.
 */
export interface NodeHost {
  launch(req: LaunchRequest): Promise<RunningServer>;
  /** Run a set-up command (initdb) to completion; rejects with its stderr. */
  runSetup(name: string, dir: string, cmd: Command, cwd: string): Promise<void>;
  /** Kill the set-up commands of node `name` still running (Ctrl-C during initdb). */
  cancelSetups(name: string): void;
  /** uid/gid that files for `user` must be owned by; undefined = the harness's own (nothing to chown). */
  account(user: ServerUser): { uid: number; gid: number } | undefined;
  /** Whether a server run as `user` can reach `dir` as it sees it (a 0700 mkdtemp dir on the path stops it). */
  canEnter(user: ServerUser, dir: string): boolean;
  /** `/usr/lib/postgresql/<v>/bin` where the servers run. */
  postgresBinDir(): string;
  /**
   * A folder outside the run dir that the run just created and a server will work in (Postgres's data dir when
   * the run dir is private to root): recorded so `cleanup` may look for that server's leftovers there, and only there.
   */
  ownDir?(dir: string): void;
  /**
   * A memory-backed folder (tmpfs) where a server's throw-away data may live instead of the run dir, or null
   * (common/memory-dir.ts). Only a host whose servers see the harness's own folders has one (not Docker's).
   */
  memoryDir?(): string | null;
}
