import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, startTime } from '../common/pid-registry.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import type { InjectAction } from './adapter.ts';
import type { AdapterSpec } from './target-spec.ts';

/**
 * After an injection's bound, how long the guard still leaves it to the harness: the harness heals at the end of
 * its hold (plus a restart it waits for), so only a harness that is stuck or gone lets an injection reach this.
 */
export const GUARD_GRACE_MS = 30_000;
/** How often the guard looks at the harness and the injections. */
export const GUARD_POLL_MS = 200;
/**
 * How long `stop` waits for the guard to exit: a poll, or its start-up (Node and tsx, seconds on a busy 2-core
 * machine) when the run ends before the guard got going.
 */
const GUARD_EXIT_WAIT_MS = 15_000;
const EXIT_POLL_MS = 20;

/** One armed injection, as its file in the guard's folder says it. */
export interface ArmedInjection {
  adapter: string;
  action: InjectAction;
  node: string;
  /** Epoch ms after which the guard heals it itself. */
  expiresAt: number;
}

/** What the guard process is started with (its `guard.json`). */
export interface GuardConfig {
  harnessPid: number;
  harnessStartTime: number | null;
  adapters: Record<string, AdapterSpec>;
  commandLog: string;
  runId: string;
}

const MAIN = fileURLToPath(new URL('./injection-guard-main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/**
 * Every injection on a target must end by itself if fencepost dies (kill -9, a CI job cancelled, the machine's OOM
 * killer): a detached process of its own, started once per run, watches the harness and the injections armed in its
 * folder, and heals through the same adapter code — at once when the harness is gone, or when an injection outlives
 * its bound by GUARD_GRACE_MS. Arming and disarming are files renamed atomically, so the harness and the guard never
 * both heal one injection (a rename only one of them can win claims it).
 */
export class InjectionGuard {
  private seq = 0;
  private stopped = false;

  private constructor(
    readonly dir: string,
    readonly pid: number,
  ) {}

  static start(dir: string, config: Omit<GuardConfig, 'harnessPid' | 'harnessStartTime'>): InjectionGuard {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const full: GuardConfig = { ...config, harnessPid: process.pid, harnessStartTime: startTime(process.pid) };
    fs.writeFileSync(path.join(dir, 'guard.json'), JSON.stringify(full), { mode: RUN_FILE_MODE });
    const out = fs.openSync(path.join(dir, 'guard.log'), 'a', RUN_FILE_MODE);
    // Detached, in a session of its own: a signal to the harness's process group (a CI runner cancelling the job)
    // must not take the guard with it, since the guard is what heals then.
    const child = fork(MAIN, [dir], {
      detached: true,
      stdio: ['ignore', out, out, 'ipc'],
      execArgv: ['--import', TSX],
    });
    fs.closeSync(out);
    child.disconnect();
    child.unref();
    return new InjectionGuard(dir, child.pid!);
  }

  /** Arms an injection that must be undone by `expiresAt` (epoch ms) + the grace; returns its id for `disarm`. */
  arm(injection: Omit<ArmedInjection, 'expiresAt'>, boundMs: number): string {
    const id = `${process.pid}-${++this.seq}`;
    const armed: ArmedInjection = { ...injection, expiresAt: Date.now() + boundMs + GUARD_GRACE_MS };
    const file = path.join(this.dir, `${id}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(armed), { mode: RUN_FILE_MODE });
    fs.renameSync(`${file}.tmp`, file);
    return id;
  }

  /** Claims the injection back for the harness to heal: false when the guard claimed it first (and heals it). */
  disarm(id: string): boolean {
    const file = path.join(this.dir, `${id}.json`);
    try {
      fs.renameSync(file, `${file}.harness`);
      fs.rmSync(`${file}.harness`, { force: true });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Tells the guard the run is over (nothing armed is left to it) and waits until its process is gone: it exits at
   * its next poll, but a run that returned while its guard still lived left a process behind (CI's target-docker test
   * found one). True when it is gone; false after GUARD_EXIT_WAIT_MS (it still exits on its own: the file stays).
   */
  async stop(): Promise<boolean> {
    if (!this.stopped) {
      this.stopped = true;
      fs.writeFileSync(path.join(this.dir, 'done'), '');
    }
    const deadline = Date.now() + GUARD_EXIT_WAIT_MS;
    while (isAlive(this.pid)) {
      if (Date.now() > deadline) return false;
      await sleep(EXIT_POLL_MS);
    }
    return true;
  }
}
