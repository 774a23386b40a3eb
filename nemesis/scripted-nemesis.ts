import type { FaultName } from '../faults/fault-names.ts';
import { deriveSeed } from '../common/random.ts';
import type { FaultExecutor, Healed } from './fault.ts';
import { EXECUTORS } from './fault-registry.ts';
import type { NemesisEnv } from './nemesis.ts';
import { describe, ScheduledNemesis } from './scheduled-nemesis.ts';
import { ScriptedSections } from './scripted-sections.ts';

/** A fault a script struck, in effect until its heal step (or the script's end). */
export interface ScriptedShot {
  fault: FaultName;
  targets: string[];
  /** Heal it and record its `end`; `script-end`: the script ended (or stopped) with it still in effect. */
  end(endedBy: 'script' | 'script-end'): Promise<void>;
}

/** What a scripted step asks of a fault beyond its name. */
export interface StrikeRequest {
  fault: FaultName;
  /** The client slot an aimed fault strikes (its open critical section, or its next); null for a fault that picks its own target. */
  slot: number | null;
  /** `clock +60s`: the jump, in place of --clock-offset. */
  offsetS?: number;
  /** `on redis[0..2]`: the nodes it may strike. */
  only?: readonly string[];
  /** `hold-request A SET`: the request it aims at, by its command. */
  request?: string;
  /** The step's number: with the run's seed, the shot's random stream. */
  step: number;
}

/**
 * The nemesis of a scripted scenario: no schedule — each fault strikes when its step comes, at the client the step
 * names, through the fault's own executor (faults/<name>/inject.ts), so its records (`start` with the aim, `end` with
 * how long it held) are those of a scheduled shot and the judges (faults/catalogue.ts) tell its story the same
 * way. It holds until the script heals it, not for a time or until its story's next step (`endedBy: script`).
 * Setup, the final sweep and the refusals are the scheduled nemesis's.
 */
export class ScriptedNemesis extends ScheduledNemesis {
  private readonly feeds: ScriptedSections;
  private readonly open = new Set<ScriptedShot>();
  private readonly ended = new AbortController();

  constructor(env: NemesisEnv, executors: FaultExecutor[], skipped: Readonly<Record<string, string>>) {
    super(env, executors, skipped);
    this.feeds = new ScriptedSections(env.journal, env.config.concurrency);
  }

  /** Nothing runs on a schedule: the script strikes (`strike`). */
  override async run(): Promise<void> {}

  /** Strike as the step asks: the shot in effect, or why there was none (the script could not be followed). */
  async strike(req: StrikeRequest): Promise<ScriptedShot | { miss: string }> {
    const executor = this.executors.find((e) => e.name === req.fault);
    if (!executor) return { miss: this.skipped[req.fault] ?? `${req.fault} was not prepared for this run` };
    const signal = this.ended.signal;
    const sections = req.slot === null ? undefined : this.feeds.forSlot(req.slot);
    const ctx = {
      ...this.context(
        deriveSeed(this.env.config.seed, { purpose: 'scripted-shot', step: req.step }),
        signal,
        signal,
        sections,
      ),
      ...(req.offsetS !== undefined ? { config: { ...this.env.config, clockOffsetS: req.offsetS } } : {}),
      ...(req.only ? { only: new Set(req.only) } : {}),
      ...(req.slot !== null ? { slot: req.slot } : {}),
      ...(req.request !== undefined ? { request: req.request } : {}),
    };
    let injection;
    try {
      injection = await executor.start(ctx);
    } catch (err) {
      return { miss: `${req.fault} failed to start: ${(err as Error).message}` };
    }
    if (!injection)
      return {
        miss: `${req.fault} found nothing to strike${req.slot === null ? '' : ` in client slot ${req.slot}'s critical section`} (${signal.aborted ? 'the run ended' : `its own conditions: ${EXECUTORS[req.fault].name} logs why`})`,
      };
    this.record(req.fault, {
      phase: 'start',
      targets: injection.targets,
      params: injection.params,
      note: injection.note,
    });
    this.env.log(`fencepost: scenario: ${req.fault} start: ${describe(injection.targets, injection.params)}`);
    const heldFrom = performance.now();
    const shot: ScriptedShot = {
      fault: req.fault,
      targets: injection.targets,
      end: async (endedBy) => {
        if (!this.open.delete(shot)) return;
        let end: Healed = {};
        try {
          end = (await injection.heal()) ?? {};
        } catch (err) {
          end = { note: `heal failed: ${(err as Error).message} (the final sweep retries)` };
        }
        const params = { heldMs: Math.round(performance.now() - heldFrom), endedBy, ...end.params };
        this.record(req.fault, { phase: 'end', targets: injection.targets, params, note: end.note });
        this.env.log(`fencepost: scenario: ${req.fault} end: ${describe(injection.targets, end.params, end.note)}`);
      },
    };
    this.open.add(shot);
    return shot;
  }

  /** Heal and record every fault still in effect: the script is over (or stopped), the clients not yet. */
  async endShots(): Promise<void> {
    for (const shot of [...this.open]) await shot.end('script-end');
  }

  /** Every fault still in effect healed and recorded, then the scheduled nemesis's sweep. */
  override async heal(opts: { interrupted?: boolean } = {}): Promise<void> {
    if (opts.interrupted) this.interrupt.abort();
    this.ended.abort();
    await this.endShots();
    this.feeds.close();
    await super.heal(opts);
  }
}

/** The scripted nemesis for `env.faults` (those the scenario's steps use), leaving out those that do not apply. */
export function createScriptedNemesis(env: NemesisEnv): ScriptedNemesis {
  const executors: FaultExecutor[] = [];
  const skipped: Record<string, string> = {};
  for (const name of env.faults) {
    const why = EXECUTORS[name].unavailable(env);
    if (why) skipped[name] = why;
    else executors.push(EXECUTORS[name]);
  }
  return new ScriptedNemesis(env, executors, skipped);
}
