import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WATCHDOG_PROCESS_OFFSET, type ClientSpec, type FromClient, type ToClient } from '../workloads/client-protocol.ts';
import type { OpInput } from './history/op.ts';
import type { PidRegistry } from './pid-registry.ts';

const CLIENT_SCRIPT = new URL('../workloads/client.ts', import.meta.url);
const TSX = import.meta.resolve('tsx');

/** One client OS process as the harness (and the nemesis) sees it. */
export interface ClientHandle {
  slot: number;
  pid: number;
  /** The history process id the client is currently using (changes after each `info`). */
  process: number;
  /** Whether the nemesis has SIGSTOPped it. */
  paused: boolean;
  exited: boolean;
}

/**
 * The client processes of a run. Spawned detached (own process group) so a terminal Ctrl-C reaches only the
 * harness, which resumes and stops them in order; each is registered for `fencepost cleanup`.
 */
export class ClientPool {
  readonly clients: ClientHandle[] = [];
  private children: ChildProcess[] = [];
  private exitPromises: Promise<void>[] = [];

  constructor(
    private readonly runDir: string,
    private readonly pids: PidRegistry,
    private readonly onOp: (op: OpInput) => void,
    private readonly env: (slot: number) => Record<string, string> = () => ({}),
  ) {}

  async start(specs: ClientSpec[]): Promise<void> {
    const ready: Promise<void>[] = [];
    for (const spec of specs) {
      const log = fs.openSync(path.join(this.runDir, 'logs', `client-${spec.slot}.log`), 'a');
      const child = fork(CLIENT_SCRIPT, ['--run-dir', this.runDir, '--slot', String(spec.slot)], {
        execArgv: ['--import', TSX],
        detached: true,
        stdio: ['ignore', log, log, 'ipc'],
        env: { ...process.env, ...this.env(spec.slot) },
      });
      fs.closeSync(log);
      const handle: ClientHandle = { slot: spec.slot, pid: child.pid!, process: spec.slot, paused: false, exited: false };
      this.clients.push(handle);
      this.children.push(child);
      this.pids.add({ name: `client-${spec.slot}`, pid: child.pid!, marker: this.runDir });
      this.exitPromises.push(
        new Promise((resolve) =>
          child.once('exit', () => {
            handle.exited = true;
            this.pids.remove(`client-${spec.slot}`);
            resolve();
          }),
        ),
      );
      ready.push(
        new Promise((resolve, reject) => {
          child.on('message', (msg: FromClient) => {
            if (msg.type === 'ready') resolve();
            else if (msg.type === 'op') {
              if (typeof msg.op.process === 'number' && msg.op.process < WATCHDOG_PROCESS_OFFSET) handle.process = msg.op.process;
              this.onOp(msg.op);
            } else if (msg.type === 'log') fs.appendFileSync(path.join(this.runDir, 'logs', `client-${spec.slot}.log`), `${msg.line}\n`);
          });
          child.once('exit', (code) => reject(new Error(`client ${spec.slot} exited (code ${code}) before it was ready; see logs/client-${spec.slot}.log`)));
        }),
      );
    }
    await Promise.all(ready);
    specs.forEach((spec, i) => this.children[i].send({ type: 'start', spec } satisfies ToClient));
  }

  signal(slot: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
    const c = this.clients[slot];
    if (!c || c.exited) return;
    try {
      process.kill(c.pid, signal);
      c.paused = signal === 'SIGSTOP';
    } catch {
      // exited meanwhile
    }
  }

  /** Ask every client to finish its step and exit; after `graceMs`, resume and kill the stragglers. */
  async stop(graceMs: number): Promise<void> {
    for (const c of this.clients) this.signal(c.slot, 'SIGCONT');
    for (const child of this.children) {
      if (child.connected) child.send({ type: 'stop' } satisfies ToClient, () => {});
    }
    const all = Promise.all(this.exitPromises);
    if (await Promise.race([all.then(() => true), sleep(graceMs).then(() => false)])) return;
    this.kill();
    await all;
  }

  /** SIGCONT before SIGKILL: a stopped process does die of SIGKILL, but its pending IPC would be lost anyway. */
  kill(): void {
    for (const c of this.clients) {
      if (c.exited) continue;
      try {
        process.kill(c.pid, 'SIGCONT');
        process.kill(c.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}
