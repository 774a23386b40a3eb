import { setTimeout as sleep } from 'node:timers/promises';
import type { NemesisValue } from '../history/bank.ts';
import type { ClusterNode } from '../cluster/node.ts';
import { seededRandom } from '../common/random.ts';
import { CriticalSections, type SectionFeed } from './critical-sections.ts';
import { FailoverPair, PRIMARY_PROXY } from './failover-pair.ts';
import type { FaultContext, FaultExecutor, Healed, Injection } from './fault.ts';
import { everyRedisMaster } from './lock-servers.ts';
import type { Nemesis, NemesisEnv } from './nemesis.ts';
import { RedisKeyProbe } from './redis-key-probe.ts';
import { faultSchedule, firstDelayFor, type ScheduledFault } from './schedule.ts';
import { faultEndSentence, faultStartSentence, rawFaultLine } from './fault-sentence.ts';

/** Sleep that ends early (without throwing) when the signal aborts. */
async function quietly(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await sleep(ms, undefined, { signal }).catch(() => {});
}

/**
 * Holds an injection: `holdMs`, or until its story took the step it waits for (`ready`), or until the run ends —
 * which of the three ended it.
 */
async function hold(injection: Injection, signal: AbortSignal): Promise<'story' | 'bound' | 'run-end'> {
  const done = new AbortController();
  const bound = quietly(injection.holdMs, AbortSignal.any([signal, done.signal])).then(() =>
    signal.aborted ? ('run-end' as const) : ('bound' as const),
  );
  // A watch that fails leaves the bound to end the hold.
  const story = injection.ready?.then(
    () => 'story' as const,
    () => new Promise<never>(() => {}),
  );
  const endedBy = await Promise.race(story ? [bound, story] : [bound]);
  done.abort();
  return endedBy;
}

export function describe(targets: string[], params?: Record<string, unknown>, note?: string): string {
  const p = params && Object.keys(params).length ? ` ${JSON.stringify(params)}` : '';
  return `${targets.join(', ')}${p}${note ? ` — ${note}` : ''}`;
}

/**
 * The nemesis of a run: the seeded schedule of `faults`, one fault at a time — quiet for the interval, inject,
 * hold, heal — each start and end journaled as a `nemesis` op with its targets and parameters.
 *
 * heal() is the one way out, from the normal end of a run and from Ctrl-C alike: it stops the schedule for good
 * (no fault starts after it), waits for the fault in progress to undo itself, then sweeps everything back to
 * normal whether a fault of ours touched it or not: every client and node resumed, every proxy forwarding, every
 * clock at real time, every node a fault killed running again.
 */
export class ScheduledNemesis implements Nemesis {
  private readonly stop = new AbortController();
  protected readonly interrupt = new AbortController();
  private readonly sections: CriticalSections;
  private readonly down = new Set<ClusterNode>();
  private pair: FailoverPair | null = null;
  private readonly redisKeys = new RedisKeyProbe();
  protected inFlight: Promise<void> = Promise.resolve();
  /** When the clients stop (performance.now() ms), set when the schedule starts: a shot must finish its story by then. */
  private clientsStopAt = Infinity;

  constructor(
    protected readonly env: NemesisEnv,
    protected readonly executors: FaultExecutor[],
    readonly skipped: Readonly<Record<string, string>> = {},
  ) {
    this.sections = new CriticalSections(
      env.journal,
      env.config.concurrency,
      executors.some((e) => e.needs.liveOps === true),
    );
  }

  async setup(): Promise<void> {
    await this.sweep(false);
    const failover = this.env.cluster.failover;
    if (failover && this.executors.some((e) => e.needs.failoverPair)) {
      this.pair = await FailoverPair.setup(failover, this.env.proxies.get(PRIMARY_PROXY)!, this.env.proxies);
    }
    const { cluster } = this.env;
    this.redisKeys.warm([
      ...everyRedisMaster(cluster, null).map((m) => m.node),
      ...(failover ? [failover.primary, failover.replica] : []),
    ]);
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!this.executors.length) return;
    const { config, log } = this.env;
    const abort = AbortSignal.any([signal, this.stop.signal]);
    this.clientsStopAt = performance.now() + config.timeLimitS * 1000;
    const firstDelayMs = firstDelayFor(config.nemesisIntervalMs);
    log(
      `fencepost: nemesis: ${this.executors.map((e) => e.name).join(', ')} — first after ${firstDelayMs} ms, then ${config.nemesisIntervalMs} ms apart; pause ${config.pauseMs} ms, TTL ${config.ttlMs} ms`,
    );
    const byName = new Map(this.executors.map((e) => [e.name, e]));
    let shots = 0;
    for (const step of faultSchedule([...byName.keys()], config.seed, {
      intervalMs: config.nemesisIntervalMs,
      firstDelayMs,
    })) {
      await quietly(step.delayMs, abort);
      if (abort.aborted) break;
      const shot = this.runStep(byName.get(step.fault)!, step, abort);
      this.inFlight = shot.then(() => {});
      // --shots: the schedule ends after that many shots that struck (shrink's smallest schedule).
      if ((await shot) && ++shots >= (config.maxShots ?? Infinity)) break;
    }
  }

  /** One scheduled shot; whether it struck (a `start` record that is not a failure to start). */
  private async runStep(executor: FaultExecutor, step: ScheduledFault, signal: AbortSignal): Promise<boolean> {
    const { log } = this.env;
    const aim = this.aimSignal(executor, signal);
    if (!aim) return false;
    const ctx = this.context(step.seed, signal, aim);
    let injection;
    try {
      injection = await executor.start(ctx);
    } catch (err) {
      // Whatever it changed before failing is undone by the sweep in heal() (a target's node heals a failed injection
      // at once: remote-node.ts); the run goes on. The history says so
      // (a `fail` start and its end at once): the shot is a miss with this reason (fault-hits.ts), not a log line.
      const note = `failed to start: ${(err as Error).message}`;
      log(`fencepost: nemesis: ${executor.name} ${note}`);
      this.record(executor.name, { phase: 'start', targets: [], note }, 'fail');
      this.record(executor.name, { phase: 'end', targets: [], note: 'nothing to undo: it never started' }, 'fail');
      return false;
    }
    if (!injection) {
      if (!signal.aborted)
        log(
          `fencepost: nemesis: ${executor.name}: no opportunity this turn (no client entered its critical section in time)`,
        );
      return false;
    }
    this.record(executor.name, {
      phase: 'start',
      targets: injection.targets,
      params: injection.params,
      note: injection.note,
    });
    const { name } = executor;
    const verbose = this.env.config.verbose === true;
    log(
      `fencepost: nemesis: ${verbose ? rawFaultLine(name, 'start', injection.targets, injection.params) : faultStartSentence(name, injection.targets, injection.params, injection.holdMs, { waitsForStory: injection.ready !== undefined })}`,
    );
    const heldFrom = performance.now();
    const endedBy = await hold(injection, signal);
    let end: Healed = {};
    try {
      end = (await injection.heal()) ?? {};
    } catch (err) {
      end = { note: `heal failed: ${(err as Error).message} (the final sweep retries)` };
    }
    // How long it held and what ended the hold, for every fault: a hold the run's end cut short (`cutShort`) is a
    // shot whose story could not finish (faults/pause-holder/judge.ts, faults/delay-write/judge.ts).
    const params = {
      heldMs: Math.round(performance.now() - heldFrom),
      ...(injection.ready ? { endedBy } : {}),
      ...(endedBy === 'run-end' ? { cutShort: true as const } : {}),
      ...end.params,
    };
    this.record(executor.name, { phase: 'end', targets: injection.targets, params, note: end.note });
    log(
      `fencepost: nemesis: ${verbose ? rawFaultLine(name, 'end', injection.targets, params, end.note) : faultEndSentence(name, params, performance.now() - heldFrom, end.note)}`,
    );
    return true;
  }

  /** What an executor acts with: the run, a random stream seeded for the shot, its signals, the nemesis's state. */
  protected context(
    seed: number,
    signal: AbortSignal,
    aim: AbortSignal,
    sections: SectionFeed = this.sections,
  ): FaultContext {
    return {
      ...this.env,
      random: seededRandom(seed),
      signal,
      aim,
      interrupted: this.interrupt.signal,
      sections,
      down: this.down,
      pair: this.pair,
      redisKeys: this.redisKeys,
    };
  }

  /**
   * The signal an executor aims by: the run's, and for a fault whose story needs time after the strike
   * (`needs.shotMs`), aborted once a strike could no longer finish before the clients stop. Null when that moment has
   * passed already: the step is not started.
   */
  private aimSignal(executor: FaultExecutor, signal: AbortSignal): AbortSignal | null {
    const { ttlMs, thinkMs, restartDelayMs } = this.env.config;
    const shotMs = executor.needs.shotMs?.({ ttlMs, thinkMs, restartDelayMs });
    if (shotMs === undefined || this.clientsStopAt === Infinity) return signal;
    const left = Math.floor(this.clientsStopAt - shotMs - performance.now());
    if (left > 0) return AbortSignal.any([signal, AbortSignal.timeout(left)]);
    if (!signal.aborted)
      this.env.log(
        `fencepost: nemesis: ${executor.name}: not started: its story needs ${shotMs} ms before the clients stop, and they stop in ${Math.max(0, Math.round(this.clientsStopAt - performance.now()))} ms`,
      );
    return null;
  }

  protected record(f: string, value: NemesisValue, type: 'info' | 'fail' = 'info'): void {
    const v: NemesisValue = { phase: value.phase, targets: value.targets };
    if (value.params) v.params = value.params;
    if (value.note) v.note = value.note;
    this.env.journal.append({ process: 'nemesis', type, f, value: v });
  }

  async heal(opts: { interrupted?: boolean } = {}): Promise<void> {
    if (opts.interrupted) this.interrupt.abort();
    this.stop.abort();
    await this.inFlight.catch(() => {});
    this.sections.close();
    this.redisKeys.close();
    await this.sweep(true);
  }

  /** Everything back to normal, whoever changed it. Never throws. */
  private async sweep(restartKilled: boolean): Promise<void> {
    const { clients, cluster, proxies, clocks, log } = this.env;
    // SIGCONT clients and nodes first: a stopped process can't notice anything else we fix.
    for (const c of clients.clients) if (!c.exited) clients.signal(c.slot, 'SIGCONT');
    // A resume that fails is said here; a target's node also keeps it (leftFaulted) for the verdict and the summary.
    await Promise.all(
      cluster.nodes.map((n) =>
        n.resume().catch((err: Error) => log(`fencepost: nemesis: could not resume ${n.name}: ${err.message}`)),
      ),
    );
    for (const p of proxies.values()) {
      try {
        p.heal();
      } catch {
        // closed already (teardown ran first)
      }
    }
    // Every server link open again, whatever grudge was in effect (heal() of the table never throws).
    this.env.serverNet?.heal();
    try {
      const was = clocks?.resetAll() ?? {};
      if (Object.keys(was).length) log(`fencepost: nemesis: clocks reset to real time: ${Object.keys(was).join(', ')}`);
    } catch (err) {
      log(`fencepost: nemesis: could not reset clocks: ${(err as Error).message}`);
    }
    if (!restartKilled) return;
    for (const node of [...this.down]) {
      try {
        await node.start();
        this.down.delete(node);
        log(`fencepost: nemesis: restarted ${node.name}, left down by an interrupted fault`);
      } catch (err) {
        log(`fencepost: nemesis: could not restart ${node.name}: ${(err as Error).message}`);
      }
    }
  }
}
