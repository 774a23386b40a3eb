import type { AccountRef } from '../history/bank.ts';
import type { Op } from '../history/op.ts';
import { processRole } from '../history/process-role.ts';
import { STALE_REFUSALS } from '../history/stale-write.ts';
import { holderWrote } from '../faults/judging/story-steps.ts';
import type { DrivenStepName } from '../workloads/driven-client.ts';
import type { Until } from './scenario-steps.ts';

/**
 * A scripted step's gate: the next step starts only once the history shows this one complete, so the script — not
 * a sleep — fixes the interleaving. Judged by the judges' own step rules (faults/judging/story-steps.ts): a step that
 * happened is `done`; one the lock or its fence observably stopped (a stale write refused, a write skipped because
 * the client learned it lost the lock) is `held` — the script was followed and the lock passed; anything else (not
 * granted, an unknown outcome, a client that died) means the run could not follow its script: `diverged`, which is
 * evidence neither way. Pure: fed ops in journal order, live (scenario-run.ts) or from a literal history (tests).
 */
export type GateOutcome = { status: 'done' | 'held' | 'diverged'; evidence: string };

const done = (evidence: string): GateOutcome => ({ status: 'done', evidence });
const held = (evidence: string): GateOutcome => ({ status: 'held', evidence });
const diverged = (evidence: string): GateOutcome => ({ status: 'diverged', evidence });

/** Whether `op` is a client op of `slot` (any of its process ids: `slot + concurrency × generation`). */
export function ofSlot(op: Op, slot: number, concurrency: number): op is Op & { process: number } {
  return (
    typeof op.process === 'number' && processRole(op.process).kind === 'client' && op.process % concurrency === slot
  );
}

/** A client step's gate: its invoke (for `start …`), then that invoke's completion, judged by completionOutcome. */
export class ClientStepGate {
  private invoke: Op | null = null;

  constructor(
    private readonly who: string,
    private readonly slot: number,
    private readonly concurrency: number,
    private readonly f: DrivenStepName,
    private readonly until: Until,
  ) {}

  /** The step's invoke once seen: a `start …` step's completion is awaited from it later. */
  get invoked(): Op | null {
    return this.invoke;
  }

  /** Feed ops from the moment the step was commanded; the outcome once the history decides it. */
  observe(op: Op): GateOutcome | null {
    if (op.f !== this.f || !ofSlot(op, this.slot, this.concurrency)) return null;
    if (op.type === 'invoke') {
      if (this.invoke) return null;
      this.invoke = op;
      return this.until === 'started' ? done(`${this.who} invoked its ${this.f} (#${op.index})`) : null;
    }
    if (!this.invoke || op.process !== this.invoke.process) return null;
    return completionOutcome(this.who, this.invoke, op);
  }
}

/** What a client step's completion means for the script. */
export function completionOutcome(who: string, invoke: Op, c: Op): GateOutcome {
  const account = (c.value as Partial<AccountRef> | null)?.account ?? (invoke.value as Partial<AccountRef>)?.account;
  const how = `${c.type}${c.error ? `: ${c.error}` : ''}`;
  switch (invoke.f) {
    case 'acquire':
      return c.type === 'ok'
        ? done(`${who} was granted account ${account} (#${c.index})`)
        : diverged(`${who} was not granted account ${account} (#${c.index}, ${how})`);
    case 'read':
      if (c.type === 'ok') return done(`${who} read account ${account} (#${c.index})`);
      return c.type === 'fail' && c.error !== undefined && STALE_REFUSALS.has(c.error)
        ? held(`${who}'s read #${c.index} was refused: a newer token had reached the resource`)
        : diverged(`${who}'s read #${c.index} did not complete (${how})`);
    case 'write': {
      // The story's rule for a holder's write: committed or unknown → done, refused as stale or skipped → held.
      const r = holderWrote({ invoke, completion: c }, who, -Infinity);
      return r.status === 'missing' ? diverged(r.evidence) : { status: r.status, evidence: r.evidence };
    }
    default:
      // A release ends the section either way; `released: false` says the lock was no longer the client's.
      return c.type === 'info' && c.error !== undefined
        ? done(`${who}'s release #${c.index} has an unknown outcome (${c.error})`)
        : done(`${who} released account ${account} (#${c.index})`);
  }
}

/**
 * `wait A renew`: A's watchdog (its process of its own, history/process-role.ts) completed a renewal invoked at or
 * after `sinceNs` — renewed, or learned the lease is gone. Either is the step done: what the renewal answered is the
 * lock's to decide, and the story's later steps show what the client made of it.
 */
export class RenewGate {
  private readonly invokes = new Map<number, Op>();

  constructor(
    private readonly who: string,
    private readonly slot: number,
    private readonly concurrency: number,
    private readonly sinceNs: number,
  ) {}

  observe(op: Op): GateOutcome | null {
    if (op.f !== 'renew' || typeof op.process !== 'number') return null;
    const role = processRole(op.process);
    if (role.kind !== 'watchdog' || role.of % this.concurrency !== this.slot) return null;
    if (op.type === 'invoke') {
      if (op.time >= this.sinceNs) this.invokes.set(op.process, op);
      return null;
    }
    // A renewal invoked before the step that fails after it (in flight when the pause came) is the same news; an ok
    // one of that age is not — it renewed before the story, and the next tick's answer is what the step waits for.
    if (!this.invokes.has(op.process) && op.type === 'ok') return null;
    return op.type === 'ok'
      ? done(`${this.who}'s watchdog renewed its lease (#${op.index})`)
      : done(
          `${this.who}'s watchdog failed to renew (#${op.index}: ${op.error ?? op.type}): it knows the lease is gone`,
        );
  }
}

/**
 * `wait A renew` when A's watchdog already knows: a renewal of A's current section (after its last granted acquire)
 * failed before the step began. The watchdog stops renewing once one fails (workloads/lease-watchdog.ts), so no
 * renewal will come to wait for — on a loaded machine a late tick can lose the lease before the script's pause. That
 * is the same fact the step waits for (the client knows its lease is gone), reached earlier: done, saying so.
 */
export function renewAlreadyFailed(
  who: string,
  slot: number,
  concurrency: number,
  before: readonly Op[],
): GateOutcome | null {
  let failed: Op | null = null;
  for (const op of before) {
    if (op.f === 'acquire' && op.type === 'ok' && ofSlot(op, slot, concurrency)) failed = null;
    if (op.f !== 'renew' || op.type === 'invoke' || op.type === 'ok' || typeof op.process !== 'number') continue;
    const role = processRole(op.process);
    if (role.kind === 'watchdog' && role.of % concurrency === slot) failed = op;
  }
  return failed
    ? done(
        `${who}'s watchdog failed to renew (#${failed.index}: ${failed.error ?? failed.type}) before this step: it knows the lease is gone`,
      )
    : null;
}
