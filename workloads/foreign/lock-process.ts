/**
 * One running foreign lock process (the user's command), spoken to over the lock-client protocol: requests go one
 * at a time (a watchdog's renew and the loop's release queue behind each other), each reply must come within its
 * time limit. Anything that breaks the protocol — a line that is not a reply to the open request, a missing reply,
 * a write to a closed stdin — leaves the process unusable: it is killed at once, the open request rejects with the
 * reason (the client loop records `info`), and the strategy starts a fresh process on the next connect.
 */
import readline from 'node:readline';
import { execa, type ResultPromise } from 'execa';
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
  /** The process's stderr, one line at a time; without it stderr is the client's own (its log file). */
  stderr?(line: string): void;
}

/** How long a process may take to exit after answering `close` before it is killed. */
export const CLOSE_GRACE_MS = 2000;

interface Pending {
  id: number;
  op: ForeignRequest['op'];
  resolve(r: ForeignReply): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export class LockProcess {
  readonly pid: number;
  private nextId = 1;
  private pending: Pending | null = null;
  /** Why the process can no longer be used, once it can't. */
  private broken: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private expectedExit = false;
  private readonly exitedPromise: Promise<void>;

  private constructor(
    private readonly child: ResultPromise,
    private readonly cmd: ForeignCommand,
    private readonly events: LockProcessEvents,
  ) {
    this.pid = child.pid ?? 0;
    this.exitedPromise = new Promise((resolve) => child.once('close', () => resolve()));
  }

  /** Start the command. Rejects (nothing left running) when it cannot be spawned. */
  static async start(cmd: ForeignCommand, events: LockProcessEvents = {}): Promise<LockProcess> {
    const child = execa(cmd.command[0], cmd.command.slice(1), {
      cwd: cmd.cwd,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: events.stderr ? 'pipe' : 'inherit',
      buffer: false,
      reject: false,
      // Python buffers a piped stdout: without this a reply that forgot to flush would look like no reply at all.
      env: { PYTHONUNBUFFERED: '1' },
      // execa's cleanup kills the process when this one exits (process.exit, a signal): a client that dies must
      // not leave its lock process holding sessions alive.
      cleanup: true,
    });
    const spawnError = await new Promise<Error | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (err) => resolve(err));
    });
    if (spawnError || !child.pid) {
      throw new Error(
        `could not start the lock process ${JSON.stringify(cmd.command)} in ${cmd.cwd}: ${spawnError?.message ?? 'no pid'}`,
      );
    }
    const p = new LockProcess(child, cmd, events);
    p.listen();
    events.spawned?.(p.pid);
    return p;
  }

  private listen(): void {
    const { child, events } = this;
    child.stdin!.on('error', (err) => this.fail(`could not write to the lock process: ${err.message}`));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => this.onLine(line));
    if (events.stderr) readline.createInterface({ input: child.stderr! }).on('line', (l) => events.stderr!(l));
    child.once('exit', (code, signal) => {
      const how = signal ? `signal ${signal}` : `code ${code}`;
      this.fail(`the lock process (pid ${this.pid}) exited with ${how}`, false);
      events.exited?.({ pid: this.pid, code, signal, expected: this.expectedExit });
    });
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
        if (this.broken) return reject(new Error(this.broken));
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
        const exited = await Promise.race([
          this.exitedPromise.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), CLOSE_GRACE_MS).unref()),
        ]);
        if (exited) return;
      } catch {
        // killed below
      }
    }
    this.kill();
    await this.exitedPromise;
  }

  /** SIGCONT first (a stopped process dies of SIGKILL too, but may be the nemesis's), then SIGKILL. */
  kill(): void {
    this.expectedExit = true;
    if (!this.broken) this.broken = 'the lock process was killed';
    for (const sig of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(this.pid, sig);
      } catch {
        // gone already
      }
    }
  }

  /** Whether requests can still be sent (nothing broke the protocol, it was not killed, it has not exited). */
  get usable(): boolean {
    return this.broken === null;
  }

  /** Resolves once the process has exited and its output is read. */
  get exited(): Promise<void> {
    return this.exitedPromise;
  }
}
