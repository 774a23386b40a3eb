/**
 * One running foreign lock process (the user's command), spoken to over the lock-client protocol: requests go one
 * at a time (a watchdog's renew and the loop's release queue behind each other), each reply must come within its
 * time limit. Anything that breaks the protocol — a line that is not a reply to the open request, a missing reply,
 * a write to a closed stdin — leaves the process unusable: it is killed at once, the open request rejects with the
 * reason (the client loop records `info`), and the strategy starts a fresh process on the next connect.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { inCgroupArgv, removeCgroup } from '../../common/cgroup2.ts';
import { startTime } from '../../common/pid-registry.ts';
import { BoundedLines } from './bounded-lines.ts';
import { killTree, type LockTree } from './lock-tree.ts';
import { StderrLog } from './stderr-log.ts';
import type { ForeignCommand } from './manifest.ts';
import {
  decodeReply,
  encodeRequest,
  ProtocolViolation,
  shownLine,
  type ForeignReply,
  type ForeignRequest,
} from './protocol.ts';

export interface LockProcessEvents {
  /** The process exists (its pid is what pause faults must stop and cleanup must kill). */
  spawned?(pid: number): void;
  /** It ended; `expected` when we closed or killed it, false when it exited on its own. */
  exited?(how: { pid: number; code: number | null; signal: string | null; expected: boolean }): void;
  /** Every line sent (`→`) and received (`←`), for lock-check's transcript. */
  exchange?(direction: '→' | '←', line: string): void;
  /**
   * The process's stderr, one line at a time, each cut to STDERR_LINE_CHARS; without it the lines go to the client's
   * own stderr (its log file), within StderrLog's caps.
   */
  stderr?(line: string): void;
}

/** Where the process's tree is held (lock-tree.ts): below this cgroup folder, or (null) as its own process group. */
export interface LockPlacement {
  cgroupParent: string | null;
}

/**
 * The longest reply line taken (1 MiB): a reply is a short JSON object; a longer line is a protocol violation, cut
 * off as it grows rather than held (bounded-lines.ts).
 */
export const MAX_REPLY_BYTES = 1 << 20;
/** At most this much of one stderr line is kept (the rest is said to be cut). */
export const STDERR_LINE_CHARS = 300;
/** How long a killed process gets to be reaped before its waiters stop waiting (it is in D state, or not ours). */
const KILL_WAIT_MS = 5000;

/** Every live lock process's tree, killed when this process exits however it exits (a client's process.exit). */
const liveTrees = new Set<LockTree>();
process.on('exit', () => {
  for (const t of liveTrees) killTree(t);
});
let cgroupSeq = 0;

/** How long a process may take to exit after answering `close` before it is killed. */
export const CLOSE_GRACE_MS = 2000;
/** How long a dead process's pipes are still read before they are cut (a leftover of its tree may hold them). */
export const PIPE_DRAIN_MS = 1000;

interface Pending {
  id: number;
  op: ForeignRequest['op'];
  resolve(r: ForeignReply): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export class LockProcess {
  readonly pid: number;
  /** The process and everything it started (lock-tree.ts): what kill reaches. */
  readonly tree: LockTree;
  private nextId = 1;
  private pending: Pending | null = null;
  /** Why the process can no longer be used, once it can't. */
  private broken: string | null = null;
  /** Set at its exit, while its last replies are still read: why a request sent now is refused. */
  private exitedWhy: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private expectedExit = false;
  private readonly exitedPromise: Promise<void>;
  /** Settles once its stderr has ended (every line it wrote read), or the stream was cut (reap). */
  private readonly stderrEnded: Promise<void>;

  private constructor(
    private readonly child: ResultPromise,
    private readonly cmd: ForeignCommand,
    private readonly events: LockProcessEvents,
    cgroup: string | null,
  ) {
    this.pid = child.pid ?? 0;
    this.tree = cgroup
      ? { by: 'cgroup', dir: cgroup }
      : { by: 'process-group', leaders: [{ pid: this.pid, startTime: startTime(this.pid) }] };
    liveTrees.add(this.tree);
    // 'exit', not 'close': a child of the process that kept its stdout would hold 'close' off for good.
    this.exitedPromise = new Promise((resolve) => child.once('exit', () => resolve()));
    this.stderrEnded = new Promise((resolve) => child.stderr!.once('close', () => resolve()));
  }

  /**
   * Start the command as the root of a tree of its own (a cgroup below `placement.cgroupParent`, or its own process
   * group). Rejects (nothing left running) when it cannot be spawned.
   */
  static async start(
    cmd: ForeignCommand,
    events: LockProcessEvents = {},
    placement: LockPlacement = { cgroupParent: null },
  ): Promise<LockProcess> {
    // Named by this process too: a restarted client (another pid) never meets a folder its predecessor left.
    const cgroup = placement.cgroupParent
      ? path.join(placement.cgroupParent, `lock-${process.pid}-${++cgroupSeq}`)
      : null;
    if (cgroup) fs.mkdirSync(cgroup);
    const [file, ...args] = cgroup ? inCgroupArgv(cgroup, cmd.command) : cmd.command;
    const child = execa(file, args, {
      cwd: cmd.cwd,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      // Python buffers a piped stdout: without this a reply that forgot to flush would look like no reply at all.
      env: { PYTHONUNBUFFERED: '1' },
      // A group of its own (a leader: its pid is the group's id), so a terminal's Ctrl-C reaches only the harness and
      // a kill reaches the whole tree where no cgroup holds it. Killed with this process by the `exit` hook above
      // (execa's own cleanup skips a detached process, and would reach only the pid).
      detached: true,
      cleanup: false,
    });
    const spawnError = await new Promise<Error | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (err) => resolve(err));
    });
    if (spawnError || !child.pid) {
      if (cgroup) removeCgroup(cgroup);
      throw new Error(
        `could not start the lock process ${JSON.stringify(cmd.command)} in ${cmd.cwd}: ${spawnError?.message ?? 'no pid'}`,
      );
    }
    const p = new LockProcess(child, cmd, events, cgroup);
    p.listen();
    events.spawned?.(p.pid);
    return p;
  }

  private listen(): void {
    const { child, events } = this;
    child.stdin!.on('error', (err) => this.fail(`could not write to the lock process: ${err.message}`));
    const replies = new BoundedLines(
      MAX_REPLY_BYTES,
      (line) => this.onLine(line),
      (head) => {
        this.events.exchange?.('←', head);
        this.fail(`lock process broke the protocol (a line longer than ${MAX_REPLY_BYTES} bytes): ${shownLine(head)}`);
      },
    );
    child.stdout!.on('data', (d: Buffer) => replies.push(d));
    child.stdout!.on('end', () => replies.end());
    // Ended, or cut by reap(): every reply it wrote has been read by then.
    const stdoutDone = new Promise<void>((resolve) => child.stdout!.once('close', () => resolve()));
    const log = events.stderr ? null : new StderrLog(this.pid);
    const stderr = new BoundedLines(
      STDERR_LINE_CHARS * 4,
      (line) => (events.stderr ? events.stderr(cut(line)) : log!.line(line)),
      (head) => (events.stderr ? events.stderr(cut(head)) : log!.line(head)),
    );
    child.stderr!.on('data', (d: Buffer) => stderr.push(d));
    child.stderr!.on('end', () => stderr.end());
    child.once('exit', (code, signal) => {
      const how = signal ? `signal ${signal}` : `code ${code}`;
      const why = `the lock process (pid ${this.pid}) exited with ${how}`;
      // Whether we closed or killed it is decided now: a kill after its exit (a write that met the closed pipe) is
      // not why it exited.
      const expected = this.expectedExit;
      // No new request goes to a dead process; the open one keeps waiting for its reply, below.
      this.exitedWhy = why;
      // Nothing of its tree outlives it: a helper it forked would hold its session (and our pipes) for good.
      this.reap();
      // 'exit' may come before the last 'data': a reply written just before exiting (`close`'s) is still in the pipe.
      // The open request fails only once stdout is read to its end — bounded, as reap() cuts the pipe.
      void stdoutDone.then(() => {
        this.fail(why, false);
        log?.close();
        events.exited?.({ pid: this.pid, code, signal, expected });
      });
    });
  }

  /** Kill what is left of the tree, stop reading pipes a leftover may hold, and remove the tree's cgroup. */
  private reap(): void {
    killTree(this.tree);
    liveTrees.delete(this.tree);
    // Not at once: what it wrote before it died is still to be read (a line on stderr just before its reply, which
    // lock-check's transcript shows). A leftover that holds the pipe keeps its end off, so the wait is bounded.
    for (const s of [this.child.stdout, this.child.stderr]) setTimeout(() => s?.destroy(), PIPE_DRAIN_MS).unref();
    if (this.tree.by === 'cgroup') {
      const dir = this.tree.dir;
      // Removed once its killed processes are reaped (by init, for orphans): polled, never blocking the loop.
      const tryRemove = (left: number) => {
        try {
          fs.rmdirSync(dir);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EBUSY' && left > 0)
            setTimeout(() => tryRemove(left - 1), 50).unref();
        }
      };
      tryRemove(100);
    }
  }

  private onLine(line: string): void {
    this.events.exchange?.('←', line);
    if (this.broken) return;
    const p = this.pending;
    if (!p) {
      this.fail(`lock process broke the protocol (a line when no request was open): ${shownLine(line)}`);
      return;
    }
    try {
      const reply = decodeReply(line, p.id, p.op, this.cmd.expectToken);
      this.settle()?.resolve(reply);
    } catch (err) {
      this.fail((err as ProtocolViolation).message);
    }
  }

  private settle(): Pending | null {
    const p = this.pending;
    if (p) clearTimeout(p.timer);
    this.pending = null;
    return p;
  }

  /** The process is unusable from here on: the open request rejects with `why`, and the process is killed. */
  private fail(why: string, kill = true): void {
    if (!this.broken) this.broken = why;
    this.settle()?.reject(new Error(why));
    if (kill) this.kill();
  }

  /** Send `req` once the previous request has its reply; its reply must come within `timeoutMs`. */
  request(req: ForeignRequest, timeoutMs: number): Promise<ForeignReply> {
    const run = () =>
      new Promise<ForeignReply>((resolve, reject) => {
        if (this.broken ?? this.exitedWhy) return reject(new Error((this.broken ?? this.exitedWhy)!));
        const id = this.nextId++;
        const timer = setTimeout(
          () => this.fail(`no reply from the lock process to ${req.op} #${id} within ${timeoutMs} ms`),
          timeoutMs,
        );
        this.pending = { id, op: req.op, resolve, reject, timer };
        const line = encodeRequest(id, req);
        this.events.exchange?.('→', line.trimEnd());
        this.child.stdin!.write(line);
      });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** `close`, then wait for the exit; a process that does not answer or exit in time is killed. */
  async close(timeoutMs: number): Promise<void> {
    if (!this.broken) {
      try {
        this.expectedExit = true;
        await this.request({ op: 'close' }, Math.min(timeoutMs, CLOSE_GRACE_MS));
        this.child.stdin!.end();
        if (await this.exitedWithin(CLOSE_GRACE_MS)) return;
      } catch {
        // killed below
      }
    }
    this.kill();
    await this.exitedWithin(KILL_WAIT_MS);
  }

  /**
   * Whether it exited and its stderr was read to the end within `ms`: a transcript printed after this has every line
   * the process wrote (bounded: a leftover of its tree that keeps the pipe, or a process that cannot die, holds
   * nothing up).
   */
  async exitedAndDrainedWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    if (!(await this.exitedWithin(ms))) return false;
    return Promise.race([
      this.stderrEnded.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), Math.max(0, deadline - Date.now())).unref()),
    ]);
  }

  /** Whether it exited within `ms` (bounded: no waiter hangs on a process that cannot die). */
  exitedWithin(ms: number): Promise<boolean> {
    return Promise.race([
      this.exitedPromise.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
    ]);
  }

  /** Kill the whole tree (resumed first where signals do it: a stopped process may be the nemesis's). */
  kill(): void {
    this.expectedExit = true;
    if (!this.broken) this.broken = 'the lock process was killed';
    killTree(this.tree);
  }

  /** Whether requests can still be sent (nothing broke the protocol, it was not killed, it has not exited). */
  get usable(): boolean {
    return this.broken === null && this.exitedWhy === null;
  }

  /** Resolves once the process has exited. */
  get exited(): Promise<void> {
    return this.exitedPromise;
  }
}

const cut = (line: string) =>
  line.length > STDERR_LINE_CHARS
    ? `${line.slice(0, STDERR_LINE_CHARS)}… [cut at ${STDERR_LINE_CHARS} characters]`
    : line;
