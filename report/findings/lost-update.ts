import type { LedgerRow, WriteValue } from '../../history/bank.ts';
import type { LostUpdate } from '../../checkers/run-results.ts';
import { faultDurationMs, faultLabel, faultsDuring, type FaultWindow } from '../../history/fault-windows.ts';
import { fmtAt, fmtCount, fmtSigned } from '../format.ts';
import { pairValue, processLabel, type TimedPair, type RunIndex } from '../op-pairs.ts';
import { regressions } from './fencing.ts';
import {
  faultSpan,
  num,
  opIndexes,
  str,
  ttlClause,
  type Finding,
  type StoryInput,
  type WriteStory,
} from './finding.ts';
import { isPause } from './paused-holder.ts';

/**
 * A lost update, told as the interleaving that caused it: why (a pause of either writer inside its critical
 * section, else the faults active), who believed they held the lock, who read what before whose write committed,
 * and the fencing regression when the fencing-order checker found one for the same write.
 */

/** Lost updates erased by the same write are one story: one stale write wipes out everything since its read. */
export function groupLostUpdates(details: readonly LostUpdate[]): LostUpdate[][] {
  const groups = new Map<string, LostUpdate[]>();
  for (const lu of details) {
    const key = `${lu.account}:${lu.overwrittenBy.writeId}`;
    const g = groups.get(key) ?? [];
    g.push(lu);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** The card of one group: the overwriting write and the writes it erased. */
export function lostUpdateFinding(input: StoryInput, group: LostUpdate[], n: number): Finding {
  const { index } = input;
  const first = group[0];
  const over = writeStory(
    input,
    first.overwrittenBy,
    findWrite(index, first.overwrittenBy, first.overwrittenByOpIndex),
    'overwrote',
  );
  const lostRows = [...group].sort((a, b) => a.lost.writeId - b.lost.writeId);
  const lost = lostRows.map((lu) => writeStory(input, lu.lost, findWrite(index, lu.lost, lu.lostOpIndex), 'erased'));
  const l0 = lost[0];
  const acct = first.account;
  const overPause = pauseOn(input, over, first.overwrittenBy.process);
  const lostPause = pauseOn(input, l0, lostRows[0].lost.process);
  const sentences = [
    ...whySentences(input, over, l0, overPause, lostPause),
    ...holdersSentence(input, over, l0, acct),
    interleavingSentence(index, over, lost, overPause, lostPause),
  ];
  // The fencing rule is the fencing-order checker's: the story only names the regression it found.
  const regression = input.fencing
    ? regressions(input).find((g) => g.account === over.account && g.writeId === over.writeId)
    : undefined;
  if (regression) {
    sentences.push(
      `The resource accepted token ${regression.token} after token ${regression.afterToken}: fencing did not stop it.`,
    );
  }
  const times = [
    over.acquiredAtMs,
    over.readAtMs,
    over.writeAtMs,
    ...lost.flatMap((w) => [w.acquiredAtMs, w.readAtMs, w.writeAtMs]),
  ].filter((t): t is number => t !== null);
  const sum = lost.reduce((s, w) => s + w.delta, 0);
  return {
    id: `lost-${n}`,
    kind: 'lost-update',
    severity: 'bad',
    title:
      lost.length === 1
        ? `Lost update on account ${acct}: ${l0.process}'s write #${l0.writeId} (${fmtSigned(l0.delta)}) erased by ${over.process}'s write #${over.writeId}`
        : `${lost.length} lost updates on account ${acct}: writes ${writeIds(lost)} (${fmtSigned(sum)}) erased by ${over.process}'s write #${over.writeId}`,
    sentences,
    writes: [over, ...lost],
    fromMs: times.length ? Math.min(...times) : 0,
    toMs: times.length ? Math.max(...times) : index.endMs,
    ops: [...over.ops, ...lost.flatMap((w) => w.ops)],
  };
}

const writeIds = (lost: WriteStory[]): string =>
  lost.length === 1 ? `#${lost[0].writeId}` : `#${lost[0].writeId}–#${lost[lost.length - 1].writeId}`;

/** Why: a pause of either writer inside its critical section, else whatever faults were active. */
function whySentences(
  input: StoryInput,
  over: WriteStory,
  l0: WriteStory,
  overPause: FaultWindow | undefined,
  lostPause: FaultWindow | undefined,
): string[] {
  const out: string[] = [];
  if (overPause) out.push(pauseSentence(input, over, overPause));
  if (lostPause && lostPause !== overPause) out.push(pauseSentence(input, l0, lostPause));
  if (!overPause && !lostPause) {
    const times = [over.acquiredAtMs, over.readAtMs, l0.acquiredAtMs, over.writeAtMs, l0.writeAtMs].filter(
      (t): t is number => t !== null,
    );
    const during = times.length
      ? faultsDuring(input.faults, Math.min(...times), Math.max(...times), input.index.endMs)
      : [];
    out.push(
      during.length
        ? `Active during these writes: ${during.map(faultLabel).join('; ')}.`
        : 'No fault was active during these writes.',
    );
  }
  return out;
}

/** Who believed they held the lock. */
function holdersSentence(input: StoryInput, over: WriteStory, l0: WriteStory, acct: number): string[] {
  if (input.noLock) return [`There is no lock (--lock=${input.lock}): nothing kept the two critical sections apart.`];
  if (over.acquiredAtMs === null || l0.acquiredAtMs === null) return [];
  const [e, l] = over.acquiredAtMs <= l0.acquiredAtMs ? [over, l0] : [l0, over];
  const both = e.writeAtMs !== null && l.acquiredAtMs !== null && e.writeAtMs > l.acquiredAtMs!;
  const at = (w: WriteStory) => `${w.process} since ${fmtAt(w.acquiredAtMs)}${w.token ? ` (token ${w.token})` : ''}`;
  return [
    both
      ? `Both believed they held the lock on account ${acct}: ${at(e)}, ${at(l)}.`
      : `${e.process} acquired the lock at ${fmtAt(e.acquiredAtMs)}, ${l.process} at ${fmtAt(l.acquiredAtMs)}.`,
  ];
}

/** The interleaving: the overwriter read before the lost write committed, and wrote after it. */
function interleavingSentence(
  index: RunIndex,
  over: WriteStory,
  lost: WriteStory[],
  overPause: FaultWindow | undefined,
  lostPause: FaultWindow | undefined,
): string {
  const l0 = lost[0];
  const readAt = over.readAtMs !== null ? ` at ${fmtAt(over.readAtMs)}` : '';
  const staleBy = (w: WriteStory) => {
    const prev =
      w.readWriteId !== null && w.readWriteId !== w.writeId - 1 ? index.ledgerRow(w.account, w.writeId - 1) : undefined;
    return prev ? `, when the balance was already ${prev.to}` : '';
  };
  const fromBeforePause = (w: WriteStory, pause: FaultWindow | undefined) =>
    pause && w.readAtMs !== null
      ? `, computed from its read of ${w.readBalance} at ${fmtAt(w.readAtMs)}, before the pause${staleBy(w)}`
      : '';
  const overWrite = `${over.process} committed write #${over.writeId} (${over.from} → ${over.to})${over.writeAtMs !== null ? ` at ${fmtAt(over.writeAtMs)}` : ''}${fromBeforePause(over, overPause) || ', computed from its earlier read'}`;
  if (lost.length === 1) {
    return (
      `${over.process} read ${over.readBalance ?? over.from}${readAt}. ${l0.process} then committed write #${l0.writeId} (${l0.from} → ${l0.to}, ${fmtSigned(l0.delta)})` +
      `${l0.writeAtMs !== null ? ` at ${fmtAt(l0.writeAtMs)}` : ''}${fromBeforePause(l0, lostPause)}. ${overWrite}, so ${l0.process}'s ${fmtSigned(l0.delta)} was erased.`
    );
  }
  const sum = lost.reduce((s, w) => s + w.delta, 0);
  const who = [...new Set(lost.map((w) => w.process))];
  return (
    `${over.process} read ${over.readBalance ?? over.from}${readAt}. Then ${lost.length} writes by ${who.join(', ')} committed (${writeIds(lost)}, ${fmtSigned(sum)} in total), the first at ${fmtAt(l0.writeAtMs)}. ` +
    `${overWrite}, so all ${lost.length} were erased.`
  );
}

/** The read and acquire a write was based on: its process's latest ok read, and the ok acquire before that. */
function criticalSection(
  index: RunIndex,
  write: TimedPair,
  account: number,
): { acquire: TimedPair | null; read: TimedPair | null } {
  const read = index.before(
    write,
    (p) => p.f === 'read' && p.outcome === 'ok' && (p.account === null || p.account === account),
    (p) => p.f === 'write' || p.f === 'release',
  );
  const acquire = index.before(
    read ?? write,
    (p) => p.f === 'acquire' && p.outcome === 'ok' && (p.account === null || p.account === account),
    (p) => p.f === 'release',
  );
  return { acquire, read };
}

function writeStory(input: StoryInput, row: LedgerRow, write: TimedPair | null, role: WriteStory['role']): WriteStory {
  const { index } = input;
  const { acquire, read } = write ? criticalSection(index, write, row.account) : { acquire: null, read: null };
  const acquireValue = acquire ? pairValue(acquire) : {};
  const readValue = read ? pairValue(read) : {};
  const writeValue = (write ? pairValue(write) : {}) as Partial<WriteValue>;
  const from = acquire?.endMs ?? read?.startMs ?? write?.startMs ?? null;
  const to = write?.endMs ?? write?.startMs ?? null;
  const faults =
    from !== null && to !== null
      ? faultsDuring(input.faults, from, to, index.endMs).map((w) => `${faultLabel(w)} (${faultSpan(w)})`)
      : [];
  return {
    role,
    process: processLabel(row.process),
    account: row.account,
    acquiredAtMs: acquire?.endMs ?? null,
    token: str(acquireValue.token) ?? str(writeValue.token) ?? row.token,
    readAtMs: read?.endMs ?? null,
    readBalance: num(readValue.balance) ?? num(writeValue.from) ?? row.from,
    readWriteId: num(readValue.lastWriteId) ?? row.basedOn,
    writeAtMs: write?.endMs ?? null,
    writeStartMs: write?.startMs ?? null,
    from: row.from,
    to: row.to,
    delta: row.delta,
    writeId: row.writeId,
    faults,
    ops: opIndexes(acquire, read, write),
    writeOp: write?.invoke.index ?? null,
  };
}

function findWrite(index: RunIndex, row: LedgerRow, opIndex: number | undefined): TimedPair | null {
  if (opIndex !== undefined) {
    const p = index.byIndex.get(opIndex);
    if (p && p.f === 'write') return p;
  }
  return index.writeById.get(row.writeId) ?? null;
}

function pauseOn(input: StoryInput, w: WriteStory, processId: number): FaultWindow | undefined {
  const from = w.acquiredAtMs ?? w.readAtMs;
  const to = w.writeStartMs ?? w.writeAtMs;
  if (from === null || to === null) return undefined;
  return faultsDuring(input.faults, from, to, input.index.endMs).find(
    (f) => isPause(f) && f.processes.includes(processId),
  );
}

function pauseSentence(input: StoryInput, who: WriteStory, pause: FaultWindow): string {
  const dur = faultDurationMs(pause, input.index.endMs);
  return (
    `${who.process} was paused for ${fmtCount(dur)} ms (${pause.f}, ${faultSpan(pause)}) ` +
    `while holding the lock on account ${who.account}${who.token ? ` (token ${who.token})` : ''}${ttlClause(dur, input.ttlMs, 'omit')}.`
  );
}
