import type { WriteValue } from '../../history/bank.ts';
import { faultFacts } from '../../faults/catalogue.ts';
import type { LostUpdate } from '../../checkers/run-results.ts';
import { faultDurationMs, type FaultWindow } from '../../history/fault-windows.ts';
import type { ProcessId } from '../../history/op.ts';
import { fmtAt, fmtCount, fmtSigned, plural } from '../format.ts';
import { pairValue, processLabel, type TimedPair, type RunIndex } from '../op-pairs.ts';
import { faultSpan, opIndexes, str, ttlClause, type Finding, type StoryInput } from './finding.ts';

/**
 * Every pause of a client, told from the paused process's side: what it held, who took over, what it did next.
 */

/** A fault of the pause family that stopped client processes (pause-holder, pause-client): these cards' windows. */
export const isPause = (w: FaultWindow) => faultFacts(w.f)?.family === 'pause' && w.processes.length > 0;

/** The lost updates by the write that erased them, and by the write erased: what a resumed write caused. */
interface LostUpdatesBy {
  writer: Map<number, LostUpdate[]>;
  id: Map<number, LostUpdate>;
}

export function pausedHolderFindings(input: StoryInput): Finding[] {
  const lostBy: LostUpdatesBy = { writer: new Map(), id: new Map() };
  for (const lu of input.results.lostUpdateDetails ?? []) {
    lostBy.id.set(lu.lost.writeId, lu);
    const list = lostBy.writer.get(lu.overwrittenBy.writeId) ?? [];
    list.push(lu);
    lostBy.writer.set(lu.overwrittenBy.writeId, list);
  }
  const out: Finding[] = [];
  for (const w of input.faults.filter(isPause)) {
    for (const p of w.processes) out.push(pauseFinding(input, w, p, lostBy, `pause-${out.length + 1}`));
  }
  return out;
}

/** The lock a process held when it was stopped: its last ok acquire before the pause with no release after it. */
function heldAtPause(
  pairs: readonly TimedPair[],
  w: FaultWindow,
): { held: TimedPair | null; heldRead: TimedPair | null } {
  let held: TimedPair | null = null;
  let heldRead: TimedPair | null = null;
  for (const q of pairs) {
    if (q.startMs > w.startMs) break;
    if (q.f === 'acquire' && q.outcome === 'ok') {
      held = q;
      heldRead = null;
    } else if (q.f === 'release') held = null;
    else if (q.f === 'read' && q.outcome === 'ok') heldRead = q;
  }
  return { held, heldRead };
}

function pauseFinding(input: StoryInput, w: FaultWindow, p: ProcessId, lostBy: LostUpdatesBy, id: string): Finding {
  const { index } = input;
  const endMs = w.endMs ?? index.endMs;
  const dur = faultDurationMs(w, index.endMs);
  const { held, heldRead } = heldAtPause(index.byProcess.get(p) ?? [], w);
  const pid = w.pids.length > 0 ? ` (pid ${w.pids.join(', ')})` : '';
  const name = processLabel(p);
  if (!held) {
    return {
      id,
      kind: 'paused-holder',
      severity: 'note',
      title: `${name} paused for ${fmtCount(dur)} ms at ${fmtAt(w.startMs)} (${w.f}), not holding a lock`,
      sentences: [`${name}${pid} was paused for ${fmtCount(dur)} ms from ${fmtAt(w.startMs)} while it held no lock.`],
      fromMs: w.startMs,
      toMs: endMs,
      ops: w.startIndex !== undefined ? [w.startIndex] : [],
    };
  }
  const account = held.account ?? 0;
  const token = str(pairValue(held).token);
  const write = index.after(heldRead ?? held, (q) => q.f === 'write' || q.f === 'release' || q.f === 'acquire');
  const nextWrite = write && write.f === 'write' ? write : null;
  const takers = index.pairs
    .filter(
      (q) =>
        q.f === 'acquire' &&
        q.outcome === 'ok' &&
        q.process !== p &&
        q.account === account &&
        q.endMs !== null &&
        q.endMs >= w.startMs &&
        q.endMs <= (nextWrite?.endMs ?? endMs),
    )
    .sort((x, y) => x.endMs! - y.endMs!);
  const sentences = [
    `${name}${pid} was paused for ${fmtCount(dur)} ms (${faultSpan(w)}) while holding the lock on account ${account}` +
      `${token ? ` (token ${token}, acquired at ${fmtAt(held.endMs)})` : ` (acquired at ${fmtAt(held.endMs)})`}${ttlClause(dur, input.ttlMs, 'say')}` +
      `${heldRead ? `, after reading ${str(pairValue(heldRead).balance) ?? '?'}` : ''}.`,
    takersSentence(takers),
    outcomeAfterPause(index, nextWrite, lostBy),
  ];
  // The pause is the fault doing its job, not an anomaly: neutral, or good when the fence refused the resumed write.
  // What it cost is the lost-update finding's to say (it was a red bullet beside them, looking like one more).
  const good = nextWrite?.outcome === 'fail';
  return {
    id,
    kind: 'paused-holder',
    severity: good ? 'good' : 'note',
    title: `${name} paused for ${fmtCount(dur)} ms at ${fmtAt(w.startMs)} while holding the lock on account ${account} (${w.f})`,
    sentences,
    fromMs: held.startMs,
    toMs: Math.max(endMs, nextWrite?.endMs ?? 0),
    ops: [
      ...(w.startIndex !== undefined ? [w.startIndex] : []),
      ...opIndexes(held, heldRead, nextWrite),
      ...takers.flatMap((q) => opIndexes(q)),
    ],
  };
}

/** Who was granted the lock while its holder was stopped. */
function takersSentence(takers: readonly TimedPair[]): string {
  if (takers.length === 0) return 'Nobody else acquired that lock before it wrote.';
  const t = takers
    .slice(0, 3)
    .map(
      (q) =>
        `${processLabel(q.process)} at ${fmtAt(q.endMs)}${str(pairValue(q).token) ? ` (token ${str(pairValue(q).token)})` : ''}`,
    );
  return `Meanwhile the lock was granted to ${t.join(', ')}${takers.length > 3 ? ` and ${takers.length - 3} more` : ''}.`;
}

/** What the paused process did when it resumed: the write it made, and what that write did to the ledger. */
function outcomeAfterPause(index: RunIndex, write: TimedPair | null, lostBy: LostUpdatesBy): string {
  if (!write) return 'It did not write again before the run ended.';
  const v = pairValue(write) as Partial<WriteValue>;
  const what = `${v.to ?? '?'}${typeof v.from === 'number' && typeof v.delta === 'number' ? ` (${v.from} ${fmtSigned(v.delta)})` : ''}`;
  const tok = v.token ? ` with token ${v.token}` : '';
  const err = write.completion?.error;
  switch (write.outcome) {
    case 'ok':
      return resumedWrite(index, write, v, what, tok, lostBy);
    case 'fail':
      if (err === 'stale-token')
        return `When it resumed, its write of ${what}${tok} was rejected as stale (stale-token) at ${fmtAt(write.endMs)}: the fence held.`;
      if (err === 'lock-lost') return `Its watchdog had lost the lock, so it skipped its write of ${what} (lock-lost).`;
      if (err === 'version-conflict')
        return `When it resumed, its write of ${what} was rejected (version-conflict): the row had changed since its read.`;
      return `Its write of ${what}${tok} failed (${err ?? 'no error given'}).`;
    case 'info':
      return `Its write of ${what}${tok} has an unknown outcome (${err ?? 'no error given'}).`;
    default:
      return `Its write of ${what}${tok} never completed before the run ended.`;
  }
}

/** A write that committed after the pause: what it was based on, and whom it erased or who erased it. */
function resumedWrite(
  index: RunIndex,
  write: TimedPair,
  v: Partial<WriteValue>,
  what: string,
  tok: string,
  lostBy: LostUpdatesBy,
): string {
  const id = typeof v.writeId === 'number' ? v.writeId : null;
  let head = `When it resumed it wrote ${what}${tok} (write #${id ?? '?'}) at ${fmtAt(write.endMs)}, computed from its read from before the pause`;
  if (id !== null && typeof v.basedOn === 'number' && typeof v.account === 'number') {
    const between = id - v.basedOn - 1;
    const prev = index.ledgerRow(v.account, id - 1);
    if (between > 0)
      head += `; ${plural(between, 'other write')} had committed since that read${prev && prev.writeId !== v.basedOn ? ` and the balance was ${prev.to}` : ''}`;
  }
  const erased = id !== null ? lostBy.writer.get(id) : undefined;
  const self = id !== null ? lostBy.id.get(id) : undefined;
  if (erased && erased.length > 0) {
    const names = erased
      .slice(0, 4)
      .map((lu) => `${processLabel(lu.lost.process)}'s write #${lu.lost.writeId} (${fmtSigned(lu.lost.delta)})`)
      .join(', ');
    return `${head}. It erased ${names}${erased.length > 4 ? ` and ${erased.length - 4} more` : ''}.`;
  }
  if (self)
    return `${head}. ${processLabel(self.overwrittenBy.process)}'s write #${self.overwrittenBy.writeId}, computed from a read taken before it, then erased it in turn: its ${fmtSigned(self.lost.delta)} is lost.`;
  if (id !== null) return `${head}. No update was lost as a result.`;
  return `${head}.`;
}
