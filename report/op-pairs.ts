import type { FinalRead, LedgerRow, WriteValue } from '../history/bank.ts';
import { History, type OpPair } from '../history/history.ts';
import type { Op, ProcessId } from '../history/op.ts';
import { processRole } from '../history/process-role.ts';
import { isRecord } from '../common/is-record.ts';

export type Outcome = 'ok' | 'fail' | 'info' | 'open';

/** An invocation and its completion (paired by the history's rule), placed in time: one bar on a timeline. */
export interface TimedPair extends OpPair {
  process: ProcessId;
  f: string;
  outcome: Outcome;
  startMs: number;
  /** null when the op never completed. */
  endMs: number | null;
  /** The account the op touched, if its value names one. */
  account: number | null;
}

/** The value of a pair a reader cares about: the completion's (a read learns its balance there), else the invocation's. */
export function pairValue(p: TimedPair): Record<string, unknown> {
  const c = p.completion && isRecord(p.completion.value) ? p.completion.value : null;
  return c ?? (isRecord(p.invoke.value) ? p.invoke.value : {});
}

/**
 * Every client op paired, indexed the ways a report looks things up: by history index, by process, and writes by
 * the ledger id they committed. Tolerates the odd malformed line (a completion without an invocation is kept as a
 * zero-length bar) because a report must still open for a history the checkers rejected.
 */
export class RunIndex {
  readonly pairs: TimedPair[] = [];
  readonly nemesis: Op[] = [];
  readonly byIndex = new Map<number, TimedPair>();
  readonly byProcess = new Map<ProcessId, TimedPair[]>();
  /** Position of each pair in its process's list, so `before`/`after` start where the pair is. */
  private readonly position = new Map<TimedPair, number>();
  readonly writeById = new Map<number, TimedPair>();
  readonly finalReads: FinalRead[] = [];
  /** The final reads' ledger rows by `account/writeId`: a report looks rows up by id, and runs lose thousands. */
  private readonly ledger = new Map<string, LedgerRow>();
  /** ms since start of the last op of the history. */
  readonly endMs: number;

  constructor(input: History | readonly Op[]) {
    const history = History.of(input);
    let end = 0;
    for (const op of history.ops) {
      if (op.time / 1e6 > end) end = op.time / 1e6;
      if (op.process === 'nemesis') this.nemesis.push(op);
    }
    // A completion without an invocation and a client-exit note are kept as zero-length bars: a report must still
    // open for a history the checkers rejected, and a client's death belongs on its timeline.
    const loose = [...history.orphans, ...history.notes].sort((a, b) => a.index - b.index);
    let next = 0;
    for (const p of history.pairs) {
      while (next < loose.length && loose[next].index < p.invoke.index) this.addLoose(loose[next++]);
      const pair = this.pairFor(p.invoke, p.invoke.time / 1e6, null);
      this.add(pair);
      if (p.completion) this.complete(pair, p.completion);
    }
    while (next < loose.length) this.addLoose(loose[next++]);
    this.endMs = end;
    for (const fr of this.finalReads) for (const r of fr.ledger) this.ledger.set(`${r.account}/${r.writeId}`, r);
  }

  /** A ledger row by account and write id, from the harness's final reads. */
  ledgerRow(account: number, writeId: number): LedgerRow | undefined {
    return this.ledger.get(`${account}/${writeId}`);
  }

  private pairFor(invoke: Op, startMs: number, endMs: number | null): TimedPair {
    const v = isRecord(invoke.value) ? invoke.value : {};
    return {
      invoke,
      completion: null,
      process: invoke.process,
      f: invoke.f,
      outcome: 'open',
      startMs,
      endMs,
      account: typeof v.account === 'number' ? v.account : null,
    };
  }

  private addLoose(op: Op): void {
    const pair = this.pairFor(op, op.time / 1e6, op.time / 1e6);
    this.add(pair);
    this.complete(pair, op);
  }

  private complete(pair: TimedPair, op: Op): void {
    pair.completion = op;
    pair.outcome = op.type as Outcome;
    pair.endMs = op.time / 1e6;
    this.byIndex.set(op.index, pair);
    const v = isRecord(op.value) ? op.value : null;
    if (op.type === 'ok' && op.f === 'write' && v && typeof (v as Partial<WriteValue>).writeId === 'number')
      this.writeById.set(v.writeId as number, pair);
    if (op.type === 'ok' && op.f === 'final-read' && v && Array.isArray((v as Partial<FinalRead>).ledger))
      this.finalReads.push(v as unknown as FinalRead);
  }

  private add(pair: TimedPair): void {
    this.pairs.push(pair);
    this.byIndex.set(pair.invoke.index, pair);
    const list = this.byProcess.get(pair.process) ?? [];
    this.position.set(pair, list.length);
    list.push(pair);
    this.byProcess.set(pair.process, list);
  }

  /** The latest pair of the same process before `pair` that matches, scanning back no further than `stop` says. */
  before(
    pair: TimedPair,
    match: (p: TimedPair) => boolean,
    stop: (p: TimedPair) => boolean = () => false,
  ): TimedPair | null {
    const list = this.byProcess.get(pair.process) ?? [];
    for (let i = (this.position.get(pair) ?? 0) - 1; i >= 0; i--) {
      if (match(list[i])) return list[i];
      if (stop(list[i])) return null;
    }
    return null;
  }

  /** The first pair of the same process after `pair` that matches. */
  after(pair: TimedPair, match: (p: TimedPair) => boolean): TimedPair | null {
    const list = this.byProcess.get(pair.process) ?? [];
    for (let i = (this.position.get(pair) ?? list.length) + 1; i < list.length; i++) if (match(list[i])) return list[i];
    return null;
  }
}

/** p3, or p3·wd for a watchdog's renewals (process 100003), or the name of a non-client process. */
export function processLabel(p: ProcessId): string {
  const role = processRole(p);
  return role.kind === 'watchdog' ? `p${role.of}·wd` : role.kind === 'client' ? `p${role.process}` : role.kind;
}
