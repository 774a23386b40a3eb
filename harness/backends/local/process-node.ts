import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HarnessError } from '../../errors.ts';
import { isAlive, type PidRegistry } from '../../pid-registry.ts';
import type { ClusterNode, NodeKind } from '../node.ts';

export interface ProcessNodeOptions {
  name: string;
  kind: NodeKind;
  port: number;
  /** This node's folder under the run dir: data/ and the log live here. */
  dir: string;
  logFile: string;
  pids: PidRegistry;
  /** Extra environment for the server process, read at each start (the clock shim's LD_PRELOAD). */
  env?: () => Record<string, string>;
  /** How long a start may take before it is an error. */
  readyTimeoutMs: number;
}

export interface Command {
  file: string;
  args: string[];
  uid?: number;
  gid?: number;
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

/**
 * A server run as a child process of the harness. Children are spawned detached (their own process group) so a
 * Ctrl-C in the terminal reaches only the harness, which then stops them in order — resume first, then
 * terminate — instead of each server racing its own shutdown while some are still SIGSTOPped.
 */
export abstract class ProcessNode implements ClusterNode {
  readonly name: string;
  readonly kind: NodeKind;
  readonly port: number;
  readonly logFile: string;
  readonly dataDir: string;
  protected readonly dir: string;
  protected readonly opts: ProcessNodeOptions;
  protected child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  /** Set-up processes still running (initdb and the postgres --boot it forks). */
  private readonly helpers = new Set<ChildProcess>();
  /** Set by `halt`: a start still in its set-up must not spawn the server after teardown went past it. */
  private halted = false;
  private _paused = false;
  private _readyInMs: number | null = null;

  constructor(opts: ProcessNodeOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.kind = opts.kind;
    this.port = opts.port;
    this.dir = opts.dir;
    this.logFile = opts.logFile;
    this.dataDir = path.join(opts.dir, 'data');
  }

  /** The command that runs the server in the foreground. */
  protected abstract command(): Command;
  /** One real client call; throws while the node is not ready. */
  protected abstract probe(): Promise<void>;
  abstract version(): Promise<string>;
  /** Prepare the data dir before the first start (initdb, config files, myid). */
  protected async prepare(): Promise<void> {}

  get running(): boolean {
    return this.child !== null;
  }
  get paused(): boolean {
    return this._paused;
  }
  get readyInMs(): number | null {
    return this._readyInMs;
  }

  pids(): number[] {
    return this.child?.pid ? [this.child.pid] : [];
  }

  async start(): Promise<void> {
    if (this.child) return;
    if (!fs.existsSync(this.dataDir)) fs.mkdirSync(this.dataDir, { recursive: true });
    // initdb and config files count toward readiness: they are part of what a start costs.
    const started = performance.now();
    await this.prepare();
    if (this.halted) throw new HarnessError('interrupted', `${this.name}: torn down while starting`);
    const cmd = this.command();
    const log = fs.openSync(this.logFile, 'a');
    const child = spawn(cmd.file, cmd.args, {
      cwd: this.workDir(),
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, ...(this.opts.env?.() ?? {}) },
      uid: cmd.uid,
      gid: cmd.gid,
    });
    fs.closeSync(log);
    let exitInfo: string | null = null;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        exitInfo = signal ? `killed by ${signal}` : `exited with code ${code}`;
        if (this.child === child) this.child = null;
        this.opts.pids.remove(this.name);
        resolve();
      });
    });
    child.once('error', (err) => {
      exitInfo = `could not be started: ${err.message}`;
    });
    this.child = child;
    this._paused = false;
    if (child.pid) this.opts.pids.add({ name: this.name, pid: child.pid, marker: this.dir, killChildren: this.kind === 'pg' });

    const deadline = started + this.opts.readyTimeoutMs;
    let lastError = '';
    for (;;) {
      if (exitInfo !== null) {
        throw new HarnessError('node-start', `${this.name} ${exitInfo} before it was ready (port ${this.port}).\nLast lines of ${this.logFile}:\n${logTail(this.logFile)}`);
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
    this.signalAll('SIGSTOP');
    this._paused = true;
  }

  async resume(): Promise<void> {
    this.signalAll('SIGCONT');
    this._paused = false;
  }

  /** The signal for a graceful stop (Postgres: SIGINT, its "fast" shutdown; SIGTERM would wait for sessions). */
  protected stopSignal: NodeJS.Signals = 'SIGTERM';

  /** Graceful stop; SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    this.killHelpers();
    if (!this.child) return;
    await this.resume();
    this.child.kill(this.stopSignal);
    const stopped = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (!stopped) await this.kill();
    await this.afterExit();
  }

  async kill(): Promise<void> {
    this.killHelpers();
    if (!this.child) return;
    // Children first: a SIGKILLed postmaster leaves its backends to notice on their own, which takes a while.
    const pids = this.pids();
    for (const pid of pids.slice(1).concat(pids.slice(0, 1))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this._paused = false;
    await this.exited;
    await this.afterExit();
  }

  /**
   * Run a set-up command to completion (initdb). Detached into its own process group so that a Ctrl-C during
   * set-up can kill it together with whatever it forked; registered for `cleanup` like the server itself.
   */
  protected runHelper(cmd: Command, cwd: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd.file, cmd.args, { cwd, detached: true, stdio: ['ignore', 'ignore', 'pipe'], uid: cmd.uid, gid: cmd.gid });
      const name = `${this.name}-setup`;
      this.helpers.add(child);
      if (child.pid) this.opts.pids.add({ name, pid: child.pid, marker: this.dataDir, killChildren: true });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        this.helpers.delete(child);
        this.opts.pids.remove(name);
        if (code === 0) resolve();
        else reject(new Error(stderr.trim() || `${cmd.file} ${signal ? `killed by ${signal}` : `exited with ${code}`}`));
      });
    });
  }

  /** The server's working directory: it must be enterable by the user the server runs as. */
  protected workDir(): string {
    return this.dir;
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

  /** Set-up commands run in their own process group: kill the group, so whatever they forked goes too. */
  private killHelpers(): void {
    for (const helper of this.helpers) {
      try {
        process.kill(-helper.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** Remove anything the node keeps outside its run dir. Called once by the cluster's teardown. */
  async dispose(): Promise<void> {}

  /** Wait until helper processes of the node are gone too (Postgres backends). */
  protected async afterExit(): Promise<void> {}

  protected signalAll(signal: NodeJS.Signals): void {
    for (const pid of this.pids()) {
      if (!isAlive(pid)) continue;
      try {
        process.kill(pid, signal);
      } catch {
        // raced with exit
      }
    }
  }
}
