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
  /**
   * The injecting command had not returned when this was written: armed before the command starts (audit R4), it
   * stays true until the harness saw the command end. A command still in flight when the harness died may act after
   * the guard's first heal, so the guard heals such an injection again once `commandUntil` has passed.
   */
  inFlight?: boolean;
  /** Epoch ms by which the injecting command has ended (its adapter's bound on one command, from its start). */
  commandUntil?: number;
  /** Heals the guard tried that failed, and when it tries again; past GUARD_TRIES it leaves it to `cleanup`. */
  tries?: number;
  retryAt?: number;
  gaveUp?: boolean;
}

/** An armed injection's file name: `<pid>-<n>.json`, then `.harness` / `.guard` while one of them heals it. */
export const ARMED_FILE = /^\d+-\d+\.json$/;

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
    private readonly pidStart: number | null,
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
    return new InjectionGuard(dir, child.pid!, startTime(child.pid!));
  }

  /**
   * Whether the guard process still runs (its pid with the start time it had): a dead guard heals nothing should
   * the harness die, so the run must not go on injecting (audit R7).
   */
  alive(): boolean {
    return isAlive(this.pid) && (this.pidStart === null || startTime(this.pid) === this.pidStart);
  }

  /**
   * Arms an injection before its command starts (audit R4: a harness killed while the command ran left nothing armed)
   * that must be undone by its bound + the grace; `commandMs` is how long the command itself may take. Returns its id
   * for `landed` and `claim`.
   */
  arm(injection: Pick<ArmedInjection, 'adapter' | 'action' | 'node'>, boundMs: number, commandMs: number): string {
    const id = `${process.pid}-${++this.seq}`;
    const now = Date.now();
    this.write(id, {
      ...injection,
      expiresAt: now + commandMs + boundMs + GUARD_GRACE_MS,
      inFlight: true,
      commandUntil: now + commandMs,
    });
    return id;
  }

  /** What the injection `id`'s command carries in its environment, by which the guard finds it (orphaned-command.ts). */
  marker(id: string): string {
    return path.resolve(this.dir, id);
  }

  /** The injecting command returned: nothing of it can act any more, so one heal undoes it. */
  landed(id: string): void {
    const file = path.join(this.dir, `${id}.json`);
    try {
      const armed = JSON.parse(fs.readFileSync(file, 'utf8')) as ArmedInjection;
      this.write(id, { ...armed, inFlight: false });
    } catch {
      // claimed by the guard meanwhile (the harness was stuck past the bound): the guard heals it
    }
  }

  /** Claims the injection for the harness to heal: false when the guard claimed it first (and heals it). */
  claim(id: string): boolean {
    const file = path.join(this.dir, `${id}.json`);
    try {
      fs.renameSync(file, `${file}.harness`);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * After the harness's heal: healed, it is gone; not healed, it is armed again (audit R3: a failed heal used to
   * disarm it), so the guard heals it should the harness die, and `cleanup` heals what a run left armed.
   */
  settle(id: string, healed: boolean): void {
    const file = path.join(this.dir, `${id}.json`);
    if (healed) fs.rmSync(`${file}.harness`, { force: true });
    else fs.renameSync(`${file}.harness`, file);
  }

  private write(id: string, armed: ArmedInjection): void {
    const file = path.join(this.dir, `${id}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(armed), { mode: RUN_FILE_MODE });
    fs.renameSync(`${file}.tmp`, file);
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
