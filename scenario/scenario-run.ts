import type { Op } from '../history/op.ts';
import { runTiming } from '../common/run-timing.ts';
import { createScriptedNemesis, type ScriptedNemesis, type ScriptedShot } from '../nemesis/scripted-nemesis.ts';
import type { DrivenRun, RunDriver } from '../harness/run-driver.ts';
import type { ScenarioRecord, ScenarioStepRecord } from '../store/test-json.ts';
import type { Scenario } from './scenario-file.ts';
import { HEALS_AT_ONCE, type ScenarioStep } from './scenario-steps.ts';
import { ClientStepGate, RenewGate, renewAlreadyFailed, type GateOutcome } from './step-gate.ts';
import { LeaseClock } from './lease-clock.ts';
import { droppedReplyOutcome, faultDroppingReplyTo } from './dropped-reply.ts';

/** The longest the script waits for its clients to connect before its first step (a JVM lock client on a busy machine). */
const CONNECT_BOUND_MS = 30_000;
/** Beyond a step's own bound (a client's step timeout, a fault's aim): for the history to show what happened. */
const STEP_MARGIN_MS = 15_000;

/** A scripted scenario as the run's driver: driven clients, the scripted nemesis, the script. */
export function scenarioDriver(scenario: Scenario, file: string | null): RunDriver {
  return {
    // Every op goes to the harness at once: each gate waits on the previous step's completion.
    specs: (specs) => specs.map((s) => ({ ...s, driven: { account: 0 }, opBatchMs: null })),
    nemesis: (env) => createScriptedNemesis(env),
    drive: async (run) => ({ scenario: await new ScriptRun(scenario, file, run).run() }),
  };
}

/**
 * One run of a script: each step started once the one before it is seen complete in the history (its gate), so the
 * interleaving is the script's and the servers do the rest. The first step that cannot be followed — a gate that
 * times out or sees the story go another way — ends the script: the run is then counted apart (diverged).
 */
class ScriptRun {
  private readonly nemesis: ScriptedNemesis;
  private readonly leases: Map<string, LeaseClock>;
  private readonly shots = new Map<string, Promise<ScriptedShot | { miss: string }>>();
  private readonly inFlight = new Map<string, Promise<GateOutcome>>();
  private seq = 0;
  private readonly boundMs: number;
  private readonly stopLeases: () => void;
  /** Every op since the script began: a gate that must look back (wait A renew) is fed them first. */
  private readonly seen: Op[] = [];
  /** When the step before the current one started (ns on the history's clock). */
  private previousStartNs = 0;
  /** Gates still listening; the script's end stops them (a step that timed out leaves its gate behind). */
  private readonly listening = new Set<() => void>();
  private over = false;
  /** Clients that hold the lock by the script's steps so far: a `try` races the youngest of their leases. */
  private readonly holding = new Set<string>();
  /** Clients a `try … acquire` found kept out, with that step's number: their steps up to their release are skipped. */
  private readonly keptOut = new Map<string, number>();

  constructor(
    private readonly scenario: Scenario,
    private readonly file: string | null,
    private readonly r: DrivenRun,
  ) {
    this.nemesis = r.nemesis as ScriptedNemesis;
    const { ttlMs, restartDelayMs } = r.config;
    this.boundMs = runTiming(r.config).stepTimeoutMs + restartDelayMs + ttlMs + STEP_MARGIN_MS;
    this.leases = new Map(
      scenario.clients.map((c, slot) => [c, new LeaseClock(c, slot, scenario.clients.length, ttlMs)]),
    );
    this.stopLeases = r.journal.onOp((op) => {
      this.seen.push(op);
      this.leases.forEach((l) => l.observe(op));
    });
  }

  private nowMs(): number {
    return Math.round(this.r.journal.sinceOrigin(process.hrtime.bigint()) / 1e6);
  }

  async run(): Promise<ScenarioRecord> {
    const { scenario } = this;
    const steps: ScenarioStepRecord[] = [];
    let diverged: ScenarioRecord['diverged'] = null;
    const connected = await this.clientsWaiting();
    if (connected) diverged = { step: 0, text: '(clients connect)', why: connected };
    for (const step of scenario.steps) {
      if (diverged) {
        steps.push({ text: step.text, status: 'not-reached', evidence: '' });
        continue;
      }
      const startMs = this.nowMs();
      const out = await this.bounded(this.skipped(step) ?? this.step(step), step);
      this.previousStartNs = startMs * 1e6;
      this.track(step, out);
      steps.push({ text: step.text, ...out, startMs, endMs: this.nowMs() });
      this.r.log(`fencepost: scenario: step ${step.index + 1} ${step.text}: ${out.status} — ${out.evidence}`);
      if (out.status === 'diverged') diverged = { step: step.index + 1, text: step.text, why: out.evidence };
    }
    // Faults the script left in effect end here, before the clients stop, so their records close the story.
    this.over = true;
    for (const stop of this.listening) stop();
    await this.nemesis.endShots();
    this.stopLeases();
    return {
      name: scenario.name,
      file: this.file,
      clients: [...scenario.clients],
      steps,
      followed: diverged === null,
      diverged,
      expect: scenario.expect,
    };
  }

  /** Resolves with why not when the clients are not all connected and waiting within CONNECT_BOUND_MS. */
  private clientsWaiting(): Promise<string | null> {
    const waiting = new Set<number>();
    const n = this.scenario.clients.length;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        stop();
        const silent = this.scenario.clients.filter((_, slot) => !waiting.has(slot));
        resolve(
          `${silent.join(', ')} did not connect to the lock and the resource within ${CONNECT_BOUND_MS / 1000} s (see logs/client-<n>.log)`,
        );
      }, CONNECT_BOUND_MS);
      const stop = this.r.pool.onDriven((e) => {
        if (e.kind !== 'waiting') return;
        waiting.add(e.slot);
        if (waiting.size < n) return;
        clearTimeout(timer);
        stop();
        resolve(null);
      });
    });
  }

  /**
   * A step of a client the lock kept out (`try … acquire` held): its section does not happen, so the step is held —
   * the lock passed — up to and including its release, which ends the skip.
   */
  private skipped(step: ScenarioStep): Promise<GateOutcome> | null {
    const client = 'client' in step ? step.client : null;
    const at = client === null ? undefined : this.keptOut.get(client);
    if (at === undefined) return null;
    if (step.kind === 'client' && step.f === 'release') this.keptOut.delete(client!);
    return Promise.resolve({ status: 'held', evidence: `${client} was kept out of the lock at step ${at}: skipped` });
  }

  /** Who holds the lock by the script: a client step's acquire or release seen done. */
  private track(step: ScenarioStep, out: GateOutcome): void {
    if (out.status !== 'done') return;
    const f =
      step.kind === 'try-acquire'
        ? 'acquire'
        : (step.kind === 'client' && step.until === 'done') || step.kind === 'await-client'
          ? step.f
          : null;
    if (f === 'acquire') this.holding.add((step as { client: string }).client);
    if (f === 'release') this.holding.delete((step as { client: string }).client);
  }

  private bounded(p: Promise<GateOutcome>, step: ScenarioStep): Promise<GateOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<GateOutcome>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            status: 'diverged',
            evidence: `the history did not show "${step.text}" complete within ${Math.round(this.boundMs / 1000)} s`,
          }),
        this.boundMs,
      );
    });
    return Promise.race([p, late]).finally(() => clearTimeout(timer));
  }

  private async step(step: ScenarioStep): Promise<GateOutcome> {
    switch (step.kind) {
      case 'client':
        return this.clientStep(step.client, step.f, step.until);
      case 'await-client': {
        const pending = this.inFlight.get(step.client)!;
        this.inFlight.delete(step.client);
        return pending;
      }
      case 'try-acquire':
        return this.tryAcquire(step);
      case 'lease-expired':
        return this.leaseExpired(step.client);
      case 'await-renew': {
        const slot = this.scenario.clients.indexOf(step.client);
        // From the step before's start: the renewal due on a resume goes out with the SIGCONT, before its gate saw the end.
        const concurrency = this.scenario.clients.length;
        const before = this.seen.filter((op) => op.time < this.previousStartNs);
        const already = renewAlreadyFailed(step.client, slot, concurrency, before);
        if (already) return already;
        const gate = new RenewGate(step.client, slot, concurrency, this.previousStartNs);
        return this.watch(gate, () => null, this.previousStartNs);
      }
      case 'strike':
      case 'fault':
        return this.strike(step);
      case 'await-strike':
        return this.shotOutcome(step.fault, `${step.fault}:${step.client}`);
      case 'heal':
        return this.heal(step.fault, step.client);
    }
  }

  /** Command the client's step and wait for its gate; a `start …` step keeps the completion's gate for its `wait`. */
  private clientStep(
    client: string,
    f: Parameters<DrivenRun['pool']['step']>[2],
    until: 'done' | 'started',
  ): Promise<GateOutcome> {
    const slot = this.scenario.clients.indexOf(client);
    const seq = ++this.seq;
    const n = this.scenario.clients.length;
    const watch = (u: 'done' | 'started') =>
      this.watch(new ClientStepGate(client, slot, n, f, u), (e) =>
        e.slot === slot && e.kind === 'refused' && e.seq === seq ? `${client} could not ${f}: ${e.reason}` : null,
      );
    const started = watch(until);
    if (until === 'started') this.inFlight.set(client, watch('done'));
    this.r.pool.step(slot, seq, f);
    const dropping = faultDroppingReplyTo(this.shots.keys(), client, f);
    return dropping && until === 'done' ? started.then((o) => droppedReplyOutcome(o, dropping)) : started;
  }

  /**
   * `try B acquire`: B's acquire (a new one, or the one B has in flight) raced against half the youngest holder's
   * lease. Half, not all: a correct lock grants B once that lease runs out, which must read as "kept out", never as
   * "let in"; a lock that lets B in does so at once (milliseconds), so half a TTL is margin on a busy machine too.
   */
  private async tryAcquire(step: Extract<ScenarioStep, { kind: 'try-acquire' }>): Promise<GateOutcome> {
    const { client } = step;
    const ttlNs = this.r.config.ttlMs * 1e6;
    const holders = [...this.holding].filter((c) => c !== client);
    const ends = holders.flatMap((c) => this.leases.get(c)!.expiresAt() ?? []);
    const nowNs = () => this.r.journal.sinceOrigin(process.hrtime.bigint());
    const deadlineNs = ends.length ? Math.max(...ends) - ttlNs / 2 : nowNs() + ttlNs / 2;
    const who = holders.join(', ');
    let timer: NodeJS.Timeout | undefined;
    const keptOut = new Promise<GateOutcome>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            status: 'held',
            evidence: `${client} was not granted within half ${who}'s lease (TTL ${this.r.config.ttlMs} ms): the lock kept ${client} out`,
          }),
        Math.max(0, Math.ceil((deadlineNs - nowNs()) / 1e6)),
      );
    });
    // An acquire started earlier (`start A acquire`, its request held in flight) is the one raced, not a new one.
    const pending = this.inFlight.get(client);
    this.inFlight.delete(client);
    const granted = (pending ?? this.clientStep(client, 'acquire', 'done')).then((o) =>
      o.status === 'done' ? { ...o, evidence: `${o.evidence} while ${who} held it: the lock let two clients in` } : o,
    );
    const out = await Promise.race([granted, keptOut]).finally(() => clearTimeout(timer));
    if (out.status === 'held') this.keptOut.set(client, step.index + 1);
    return out;
  }

  /** A gate fed the journal's ops from now on, and the driven clients' refusals (the step was not invoked). */
  private watch(
    gate: { observe(op: Op): GateOutcome | null },
    refusal: (e: Parameters<Parameters<DrivenRun['pool']['onDriven']>[0]>[0]) => string | null,
    fromNs?: number,
  ): Promise<GateOutcome> {
    if (fromNs !== undefined)
      for (const op of this.seen) {
        const o = op.time >= fromNs ? gate.observe(op) : null;
        if (o) return Promise.resolve(o);
      }
    return new Promise((resolve) => {
      const stop = () => {
        offOps();
        offRefusals();
        this.listening.delete(stop);
      };
      const finish = (o: GateOutcome) => {
        stop();
        resolve(o);
      };
      const offOps = this.r.journal.onOp((op) => {
        const o = gate.observe(op);
        if (o) finish(o);
      });
      const offRefusals = this.r.pool.onDriven((e) => {
        const why = refusal(e);
        if (why) finish({ status: 'diverged', evidence: why });
      });
      this.listening.add(stop);
    });
  }

  /** Done once a TTL has passed since the client was kept from acting (the judges' rule: LeaseClock). */
  private async leaseExpired(client: string): Promise<GateOutcome> {
    const clock = this.leases.get(client)!;
    while (!this.over) {
      const at = clock.expiresAt();
      const nowNs = this.r.journal.sinceOrigin(process.hrtime.bigint());
      const ran = clock.ranOut(nowNs);
      if (ran.yes) return { status: 'done', evidence: ran.evidence };
      // Nothing yet says when its lease began (a write not yet in the hold): look again shortly.
      await new Promise((r) => setTimeout(r, at === null ? 20 : Math.max(1, Math.ceil((at - nowNs) / 1e6))));
    }
    return { status: 'diverged', evidence: 'the script ended first' };
  }

  private strike(step: Extract<ScenarioStep, { kind: 'strike' | 'fault' }>): Promise<GateOutcome> {
    const client = step.kind === 'strike' ? step.client : null;
    const key = client ? `${step.fault}:${client}` : step.fault;
    const shot = this.nemesis.strike({
      fault: step.fault,
      slot: client ? this.scenario.clients.indexOf(client) : null,
      step: step.index,
      ...(step.kind === 'strike' && step.offsetS !== null ? { offsetS: step.offsetS } : {}),
      ...(step.kind === 'strike' && step.servers ? { only: step.servers } : {}),
      ...(step.kind === 'strike' && step.request !== undefined ? { request: step.request } : {}),
    });
    this.shots.set(key, shot);
    if (step.until === 'started')
      return Promise.resolve({ status: 'done', evidence: `${step.fault} waits for ${client ?? 'its target'}` });
    return this.shotOutcome(step.fault, key);
  }

  private async shotOutcome(fault: string, key: string): Promise<GateOutcome> {
    const shot = await this.shots.get(key)!;
    if ('miss' in shot) return { status: 'diverged', evidence: shot.miss };
    if (!HEALS_AT_ONCE.has(shot.fault))
      return { status: 'done', evidence: `${fault} struck ${shot.targets.join(', ')}` };
    this.shots.delete(key);
    await shot.end('script');
    return { status: 'done', evidence: `${fault} struck ${shot.targets.join(', ')}, and they answer again` };
  }

  private async heal(fault: string, client: string | null): Promise<GateOutcome> {
    const key = client
      ? `${fault}:${client}`
      : [...this.shots.keys()].find((k) => k === fault || k.startsWith(`${fault}:`));
    const pending = key ? this.shots.get(key) : undefined;
    if (!key || !pending) return { status: 'diverged', evidence: `${fault} is not in effect` };
    this.shots.delete(key);
    const shot = await pending;
    if ('miss' in shot) return { status: 'diverged', evidence: shot.miss };
    await shot.end('script');
    return { status: 'done', evidence: `${fault} healed: ${shot.targets.join(', ')}` };
  }
}
