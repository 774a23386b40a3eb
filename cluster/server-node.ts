import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HarnessError } from '../common/errors.ts';
import type { Command, NodeHost, RunningServer, ServerUser } from './node-host.ts';
import type { ClusterNode, NodeKind } from './node.ts';

/** The file a node folder holds when the node's data lives outside the run dir: that folder's path, one line. */
export const DATA_ELSEWHERE = 'DATA-IS-ELSEWHERE';

/** Notes in node folder `nodeDir` that its data lives in `outside` (what `cleanup --data` reads after a kill -9). */
export function noteDataElsewhere(nodeDir: string, outside: string): void {
  fs.writeFileSync(path.join(nodeDir, DATA_ELSEWHERE), `${outside}\n`);
}

/** The folder node folder `nodeDir`'s marker names, or null when it has none (its data is in the folder). */
export function dataElsewhereOf(nodeDir: string): string | null {
  try {
    return fs.readFileSync(path.join(nodeDir, DATA_ELSEWHERE), 'utf8').trim();
  } catch {
    return null;
  }
}

export type { Command } from './node-host.ts';

export interface ServerNodeOptions {
  name: string;
  kind: NodeKind;
  port: number;
  /** This node's folder under the run dir: data/ and config files live here. */
  dir: string;
  logFile: string;
  /** Where the server runs: child processes (local) or containers (docker). */
  host: NodeHost;
  /** Extra environment for the server process, read at each start (the clock shim's LD_PRELOAD). */
  env?: () => Record<string, string>;
  /**
   * Files outside its folder the server's own account must be able to write, read at each start: its clock record,
   * where the shim counts the clock reads it served (a record it can only read is never counted in).
   */
  writable?: () => string[];
  /** The cgroup2 folder to start the server in (server partitions, nemesis/server-partition), read at each start. */
  cgroup?: () => string | undefined;
  /** How long a start may take before it is an error. */
  readyTimeoutMs: number;
}

/** Tail of a log file for error messages. */
export function logTail(file: string, lines = 15): string {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    return text.slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Give `root` and everything under it to `account` (a node's folder, before its server starts as that account). */
function chownTree(root: string, account: { uid: number; gid: number }): void {
  fs.lchownSync(root, account.uid, account.gid);
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    fs.lchownSync(path.join(entry.parentPath, entry.name), account.uid, account.gid);
  }
}

/**
 * A server of the cluster: what it runs (`command`), how it is prepared (`prepare`) and how it is known to be ready
 * (`probe`, a real client call) — the same for every backend. Where its processes run is the host's business
 * (local child processes, or containers): the node only launches, signals and waits through it.
 */
export abstract class ServerNode implements ClusterNode {
  readonly name: string;
  readonly kind: NodeKind;
  readonly port: number;
  readonly logFile: string;
  protected readonly dir: string;
  /**
   * The account the server runs as when the harness is root (see ServerUser). Postgres leaves this unset: it
   * places its own data dir (pg-node.ts), since initdb must run as its user too.
   */
  protected readonly serverUser?: ServerUser;
  /** A private folder under the OS temp dir standing in for `dir` when the server's account can't enter `dir`. */
  private outsideHome: string | null = null;
  protected readonly opts: ServerNodeOptions;
  protected readonly host: NodeHost;
  private proc: RunningServer | null = null;
  private exited: Promise<string> = Promise.resolve('');
  /** Set by `halt`: a start still in its set-up must not launch the server after teardown went past it. */
  private halted = false;
  private _paused = false;
  private _readyInMs: number | null = null;

  constructor(opts: ServerNodeOptions) {
    this.opts = opts;
    this.host = opts.host;
    this.name = opts.name;
    this.kind = opts.kind;
    this.port = opts.port;
    this.dir = opts.dir;
    this.logFile = opts.logFile;
  }

  /** The node's folder as the server sees it: its config files and `data/`. */
  protected get home(): string {
    return this.outsideHome ?? this.dir;
  }

  get dataDir(): string {
    return path.join(this.home, 'data');
  }

  /**
   * The account the server runs as, or undefined (not root, or a backend that doesn't switch). When that account
   * can't enter the run dir (root's 0700 home, a mkdtemp dir), the node's files go to a folder under the OS temp
   * dir instead, noted in DATA-IS-ELSEWHERE and removed by `dispose`.
   */
  private placeHome(): { uid: number; gid: number } | undefined {
    const account = this.serverUser ? this.host.account(this.serverUser) : undefined;
    if (!account || this.outsideHome) return account;
    fs.mkdirSync(this.dir, { recursive: true });
    if (this.host.canEnter(this.serverUser!, this.dir)) return account;
    this.outsideHome = fs.mkdtempSync(path.join(os.tmpdir(), `fencepost-${this.kind}-`));
    // Recorded as the run's own, so that `cleanup` may look for leftovers inside it (and nowhere broader).
    this.host.ownDir?.(this.outsideHome);
    noteDataElsewhere(this.dir, this.outsideHome);
    return account;
  }

  /** The command that runs the server in the foreground. */
  protected abstract command(): Command;
  /** One real client call; throws while the node is not ready. */
  protected abstract probe(): Promise<void>;
  abstract version(): Promise<string>;
  /** Prepare the data dir before the first start (initdb, config files, myid). */
  protected async prepare(): Promise<void> {}

  get running(): boolean {
    return this.proc !== null;
  }
  get paused(): boolean {
    return this._paused;
  }
  get readyInMs(): number | null {
    return this._readyInMs;
  }

  pids(): number[] {
    return this.proc?.pids() ?? [];
  }

  async start(): Promise<void> {
    if (this.proc) return;
    const account = this.placeHome();
    if (!fs.existsSync(this.dataDir)) fs.mkdirSync(this.dataDir, { recursive: true });
    // initdb and config files count toward readiness: they are part of what a start costs.
    const started = performance.now();
    await this.prepare();
    // Its config files (a 0600 one with a password) and data are the server account's, and no one else's.
    if (account) chownTree(this.home, account);
    // Given to its account, not opened to everyone: the file stays 0644, writable by that account and by us (root).
    if (account) for (const f of this.opts.writable?.() ?? []) fs.chownSync(f, account.uid, account.gid);
    if (this.halted) throw new HarnessError('interrupted', `${this.name}: torn down while starting`);
    const proc = await this.host.launch({
      name: this.name,
      kind: this.kind,
      dir: this.dir,
      logFile: this.logFile,
      cmd: this.command(),
      env: this.opts.env?.() ?? {},
      cgroup: this.opts.cgroup?.(),
      cwd: this.workDir(),
    });
    let exitInfo: string | null = null;
    this.exited = proc.exited.then((info) => {
      exitInfo = info;
      if (this.proc === proc) this.proc = null;
      return info;
    });
    this.proc = proc;
    this._paused = false;
    if (this.halted) {
      // Teardown ran while the launch was under way: it could not see this process, so end it here.
      await this.kill();
      throw new HarnessError('interrupted', `${this.name}: torn down while starting`);
    }

    const deadline = started + this.opts.readyTimeoutMs;
    let lastError = '';
    for (;;) {
      if (exitInfo !== null) {
        throw new HarnessError(
          'node-start',
          `${this.name} ${exitInfo} before it was ready (port ${this.port}).\nLast lines of ${this.logFile}:\n${logTail(this.logFile)}`,
        );
      }
      try {
        await this.probe();
        break;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
      if (performance.now() > deadline) {
        await this.kill();
        throw new HarnessError(
          'node-timeout',
          `${this.name} not ready after ${(this.opts.readyTimeoutMs / 1000).toFixed(0)} s (port ${this.port}); last probe error: ${lastError}\nLast lines of ${this.logFile}:\n${logTail(this.logFile)}`,
        );
      }
      await sleep(40);
    }
    this._readyInMs = Math.round(performance.now() - started);
  }

  async pause(): Promise<void> {
    await this.proc?.pause();
    this._paused = true;
  }

  async resume(): Promise<void> {
    await this.proc?.resume();
    this._paused = false;
  }

  /** The signal for a graceful stop (Postgres: SIGINT, its "fast" shutdown; SIGTERM would wait for sessions). */
  protected stopSignal: NodeJS.Signals = 'SIGTERM';

  /** Graceful stop; SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    this.host.cancelSetups(this.name);
    const proc = this.proc;
    if (!proc) return;
    await this.resume();
    await proc.signal(this.stopSignal);
    const stopped = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (!stopped) await this.kill();
    await this.afterExit();
  }

  async kill(): Promise<void> {
    this.host.cancelSetups(this.name);
    const proc = this.proc;
    if (!proc) return;
    await proc.kill();
    this._paused = false;
    await this.exited;
    await this.afterExit();
  }

  /** Run a set-up command to completion (initdb), where the server will run. */
  protected runHelper(cmd: Command, cwd: string): Promise<void> {
    return this.host.runSetup(this.name, this.dir, cmd, cwd);
  }

  /** The server's working directory: it must be enterable by the user the server runs as. */
  protected workDir(): string {
    return this.home;
  }

  /**
   * End the node for good at teardown, as fast as possible and leaving nothing behind. SIGKILL by default:
   * the data is thrown away anyway.
   */
  async halt(): Promise<void> {
    this.halted = true;
    await this.end();
  }

  /** How `halt` ends the process: SIGKILL unless a node knows a faster clean way. */
  protected async end(): Promise<void> {
    await this.kill();
  }

  /** Remove anything the node keeps outside its run dir. Called once by the cluster's teardown. */
  async dispose(): Promise<void> {
    if (this.outsideHome) fs.rmSync(this.outsideHome, { recursive: true, force: true });
    this.outsideHome = null;
  }

  /** Wait until helper processes of the node are gone too (Postgres backends). */
  protected async afterExit(): Promise<void> {}
}
