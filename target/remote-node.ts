import { setTimeout as sleep } from 'node:timers/promises';
import type { ClusterNode, NodeKind, RemoteFacts } from '../cluster/node.ts';
import { HarnessError } from '../common/errors.ts';
import { HEAL_OF, type InjectAction, type ServerFaultAdapter } from './adapter.ts';
import type { InjectionGuard } from './injection-guard.ts';
import type { TargetEndpoint } from './target-spec.ts';

/** How long a server gets to answer before it counts as not answering (a stopped one never does). */
export const ANSWER_TIMEOUT_MS = 400;
/** How long after an adapter's action the server may still answer before the action counts as having done nothing. */
export const STOP_DEADLINE_MS = 2000;
/** How long a killed server may take to answer again after its adapter started it. */
export const START_DEADLINE_MS = 60_000;
/**
 * Before a run (or `target check`): how long a server gets to answer at all, each try given REACH_TRY_MS. A server
 * that answers slowly (etcd's password check is bcrypt, a busy 2-core machine) is up; only one that never answers
 * within the deadline is reported as not answering.
 */
export const REACH_DEADLINE_MS = 10_000;
export const REACH_TRY_MS = 3000;

/** An injection whose heal failed: the server may still be stopped (or down), and the command that heals it. */
export interface LeftFaulted {
  readonly server: string;
  readonly action: InjectAction;
  readonly heal: string;
  readonly error: string;
}

/** What a remote node needs to act on its server: the adapter of each action, the guard, each injection's bound. */
export interface NodeActions {
  readonly adapters: Readonly<Partial<Record<InjectAction, ServerFaultAdapter>>>;
  /** Set once the run has a folder for it (before any fault): null = nothing to arm (dry runs). */
  guard: InjectionGuard | null;
  /** The longest the run holds each kind of injection (ms): past it plus the guard's grace, the guard heals. */
  readonly boundMs: Readonly<Record<InjectAction, number>>;
}

/**
 * A server of a target: fencepost did not start it and never stops it. It is "running" and "paused" as the run's
 * faults left it; `pause`/`resume`/`kill`/`start` go through the adapter the target file names for the fault, each
 * injection armed with the run's guard so that it ends by itself if the harness dies. After each injection the node
 * asks the server itself whether it still answers: that answer, with the adapter's own account, is the evidence
 * the fault records (`remote.lastEvidence()`), so a story is judged by the servers' answers, not by a command's exit.
 */
export abstract class RemoteNode implements ClusterNode {
  readonly logFile = '';
  readonly dataDir = '';
  readonly host: string;
  readonly port: number;
  running = true;
  paused = false;
  readyInMs: number | null = null;
  readonly remote: RemoteFacts;
  private evidence: Record<string, unknown> | null = null;
  private lastInjectedAt: bigint | null = null;
  private lastPids: number[] = [];
  /** Injections in force, with their guard id (null: no guard, a dry run or a test). */
  private readonly armed = new Map<InjectAction, string | null>();
  private readonly healFailed = new Map<InjectAction, LeftFaulted>();

  constructor(
    readonly kind: NodeKind,
    readonly target: TargetEndpoint,
    private readonly actions: NodeActions,
    keyPrefix: string,
  ) {
    this.host = target.host;
    this.port = target.port;
    const via = Object.values(actions.adapters).map((a) => `${a!.spec.type} adapter "${a!.spec.name}"`);
    this.remote = {
      via: [...new Set(via)].join(', ') || 'no adapter',
      lastEvidence: () => this.evidence,
      injectedAt: () => this.lastInjectedAt,
      keyPrefix,
      host: target.host,
    };
  }

  get name(): string {
    return this.target.name;
  }

  /** One question the server answers when it serves (PING, a member's status); rejects when it does not. */
  protected abstract ask(timeoutMs: number): Promise<unknown>;

  abstract version(): Promise<string>;

  /** Whether the server answers within ANSWER_TIMEOUT_MS. */
  async answers(): Promise<boolean> {
    try {
      await withTimeout(this.ask(ANSWER_TIMEOUT_MS), ANSWER_TIMEOUT_MS);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether the server answers at all within REACH_DEADLINE_MS: the check before a run that it runs and lets us in. */
  async reachable(deadlineMs = REACH_DEADLINE_MS): Promise<boolean> {
    return firstAnswer((ms) => this.ask(ms), deadlineMs, REACH_TRY_MS);
  }

  private adapter(action: InjectAction): ServerFaultAdapter {
    const a = this.actions.adapters[action];
    if (!a)
      throw new HarnessError(
        'bad-arguments',
        `${this.name}: no adapter of the target can ${action} it (serverFaults names none)`,
      );
    return a;
  }

  /**
   * Arms the guard, injects `action`, then records what the adapter and the server say. Armed before the command
   * starts (audit R4): a harness killed while it runs leaves the guard something to heal. A command that failed or
   * timed out may have acted all the same (audit R2: `sig.sh STOP` then exit 1 left Redis stopped), so it is healed at
   * once, and the shot fails with both outcomes.
   */
  private async inject(action: InjectAction): Promise<void> {
    const adapter = this.adapter(action);
    const guard = this.actions.guard;
    if (guard && !guard.alive())
      throw new Error(
        `the injection guard (pid ${guard.pid}) is gone: nothing would heal ${this.name} if fencepost died, so nothing is injected`,
      );
    const id = guard?.arm(
      { adapter: adapter.spec.name, action, node: this.target.node },
      this.actions.boundMs[action],
      adapter.commandBoundMs,
    );
    this.armed.set(action, id ?? null);
    try {
      // Marked with its armed record's name: should the harness die while it runs, the guard finds and stops it.
      await adapter.inject(action, this.target.node, id ? guard!.marker(id) : undefined);
    } catch (err) {
      const failed = (err as Error).message;
      const healed = await this.heal(action).then(
        () => 'healed at once, as it may have acted',
        (e: Error) => `its heal failed too: ${e.message}`,
      );
      throw new Error(`${failed}; ${healed}`);
    }
    if (id) guard!.landed(id);
    this.lastInjectedAt = process.hrtime.bigint();
    await this.observe(action, adapter);
  }

  /** After an injection: whether the server stopped answering, and what the adapter saw, as the fault's evidence. */
  private async observe(action: InjectAction, adapter: ServerFaultAdapter): Promise<void> {
    const t0 = performance.now();
    let answered = true;
    while (performance.now() - t0 < STOP_DEADLINE_MS) {
      if (!(await this.answers())) {
        answered = false;
        break;
      }
      await sleep(50);
    }
    const seen = await adapter.evidence(this.target.node);
    this.lastPids = [...seen.pids];
    this.evidence = {
      action,
      adapter: `${adapter.spec.type} adapter "${adapter.spec.name}"`,
      command: adapter.plan(action, this.target.node).command,
      acted: seen.acted,
      detail: seen.detail,
      // The server's own answer: it stopped answering within this long of the action (or never did).
      answered,
      ...(answered ? {} : { stoppedAnsweringWithinMs: Math.round(performance.now() - t0) }),
    };
  }

  /**
   * Heals `action` unless the guard already did (its claim won the rename). A heal that fails leaves the injection
   * armed (the guard and `cleanup` try again) and on `leftFaulted` until a later heal succeeds (audit R3).
   */
  private async heal(action: InjectAction): Promise<void> {
    const id = this.armed.get(action);
    const guard = this.actions.guard;
    if (id && guard && !guard.claim(id)) {
      this.armed.delete(action);
      this.healFailed.delete(action);
      return;
    }
    const adapter = this.adapter(action);
    try {
      await adapter.heal(action, this.target.node);
    } catch (err) {
      if (id && guard) guard.settle(id, false);
      this.healFailed.set(action, {
        server: this.name,
        action,
        heal: adapter.plan(HEAL_OF[action], this.target.node).command,
        error: (err as Error).message,
      });
      throw err;
    }
    if (id && guard) guard.settle(id, true);
    this.armed.delete(action);
    this.healFailed.delete(action);
  }

  /** The injections on this server whose last heal failed: it may still be stopped or down. */
  leftFaulted(): LeftFaulted[] {
    return [...this.healFailed.values()];
  }

  async pause(): Promise<void> {
    if (this.paused || !this.running) return;
    try {
      await this.inject('pause');
    } finally {
      // Still armed after a failed injection = its heal failed too: paused as far as anyone knows, so the final
      // sweep's resume tries again.
      this.paused = this.armed.has('pause');
    }
  }

  async resume(): Promise<void> {
    if (!this.paused) return;
    await this.heal('pause');
    this.paused = false;
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    if (this.paused) await this.resume();
    try {
      await this.inject('kill');
    } finally {
      this.running = !this.armed.has('kill');
    }
  }

  /** After a kill: the adapter starts it, and it counts as started once it answers again. */
  async start(): Promise<void> {
    if (this.running) return;
    const t0 = performance.now();
    await this.heal('kill');
    while (!(await this.answers())) {
      if (performance.now() - t0 > START_DEADLINE_MS)
        throw new Error(`${this.name} did not answer within ${START_DEADLINE_MS / 1000} s of its adapter's start`);
      await sleep(50);
    }
    this.readyInMs = Math.round(performance.now() - t0);
    this.running = true;
  }

  /** fencepost never stops a target's server: the run's end leaves it as the run found it. */
  async stop(): Promise<void> {
    await this.resume();
    await this.start();
  }

  pids(): number[] {
    return this.lastPids;
  }

  /** A target's data is its owner's: whether a restart kept it is what the server answers afterwards. */
  wipe(): void {}
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Asks until one answer comes (each try bounded by `tryMs`, never past the deadline), and says whether one did:
 * true as soon as `ask` resolves, false when `deadlineMs` passed without an answer.
 */
export async function firstAnswer(
  ask: (timeoutMs: number) => Promise<unknown>,
  deadlineMs: number,
  tryMs: number,
  pauseMs = 200,
): Promise<boolean> {
  const end = performance.now() + deadlineMs;
  for (;;) {
    const left = end - performance.now();
    if (left <= 0) return false;
    const ms = Math.max(1, Math.min(tryMs, left));
    try {
      await withTimeout(ask(ms), ms);
      return true;
    } catch {
      if (end - performance.now() <= pauseMs) return false;
      await sleep(pauseMs);
    }
  }
}
