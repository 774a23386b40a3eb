import type { LedgerRow, WriteValue } from '../history/bank.ts';
import type { LostUpdate, Overlap, RunResults } from '../checkers/run-results.ts';
import { faultDurationMs, faultLabel, faultsDuring, type FaultWindow } from '../history/fault-windows.ts';
import { fmtAt, fmtCount, fmtMs, fmtSigned, plural } from './format.ts';
import { pairValue, processLabel, type OpPair, type RunIndex } from './op-pairs.ts';
import { isRecord } from '../common/is-record.ts';

/**
 * What went wrong, in sentences derived from the data: the part of a report an engineer reads first. Each finding
 * names the processes, values, tokens and faults involved and says where on the timeline to look. Pure.
 */

export interface StoryInput {
  index: RunIndex;
  results: Partial<RunResults>;
  faults: FaultWindow[];
  ttlMs: number | null;
  fencing: boolean;
  lock: string;
}

/** One write of a lost-update pair, with the acquire and read it came from. */
export interface WriteStory {
  role: 'erased' | 'overwrote';
  process: string;
  account: number;
  acquiredAtMs: number | null;
  token: string | null;
  readAtMs: number | null;
  readBalance: number | null;
  readWriteId: number | null;
  writeAtMs: number | null;
  /** When the write was invoked (the end of the critical section as the client saw it). */
  writeStartMs: number | null;
  from: number;
  to: number;
  delta: number;
  writeId: number;
  /** Faults active between its acquire and the end of its write. */
  faults: string[];
  /** History indexes of its acquire, read and write (invoke and completion). */
  ops: number[];
}

export type FindingKind =
  | 'lost-update'
  | 'overlap'
  | 'fencing-violation'
  | 'paused-holder'
  | 'stale-writes'
  | 'linearizability'
  | 'undecided'
  | 'clean';

export interface Finding {
  /** Anchor id in the page. */
  id: string;
  kind: FindingKind;
  /** bad: an anomaly; good: a safety mechanism visibly worked; note: context (a fault, an undecided checker). */
  severity: 'bad' | 'good' | 'note';
  title: string;
  sentences: string[];
  writes?: WriteStory[];
  /** The stretch of the run to show on the timeline (ms since start). */
  fromMs: number;
  toMs: number;
  /** History indexes to highlight there. */
  ops: number[];
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

function opIndexes(...pairs: (OpPair | null)[]): number[] {
  const out: number[] = [];
  for (const p of pairs) {
    if (!p) continue;
    out.push(p.invoke.index);
    if (p.completion) out.push(p.completion.index);
  }
  return out;
}

/** The read and acquire a write was based on: its process's latest ok read, and the ok acquire before that. */
function criticalSection(
  index: RunIndex,
  write: OpPair,
  account: number,
): { acquire: OpPair | null; read: OpPair | null } {
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

function writeStory(input: StoryInput, row: LedgerRow, write: OpPair | null, role: WriteStory['role']): WriteStory {
  const { index } = input;
  const { acquire, read } = write ? criticalSection(index, write, row.account) : { acquire: null, read: null };
  const acquireValue = acquire ? pairValue(acquire) : {};
  const readValue = read ? pairValue(read) : {};
  const writeValue = (write ? pairValue(write) : {}) as Partial<WriteValue>;
  const from = acquire?.endMs ?? read?.startMs ?? write?.startMs ?? null;
  const to = write?.endMs ?? write?.startMs ?? null;
  const faults =
    from !== null && to !== null
      ? faultsDuring(input.faults, from, to, index.endMs).map(
          (w) => `${faultLabel(w)} (${fmtAt(w.startMs)} → ${w.endMs === null ? 'end' : fmtAt(w.endMs)})`,
        )
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
  };
}

function findWrite(index: RunIndex, row: LedgerRow, opIndex: number | undefined): OpPair | null {
  if (opIndex !== undefined) {
    const p = index.byIndex.get(opIndex);
    if (p && p.f === 'write') return p;
  }
  return index.writeById.get(row.writeId) ?? null;
}

const isPause = (w: FaultWindow) => /pause/.test(w.f) && w.processes.length > 0;

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
  const ttl = input.ttlMs !== null && dur > input.ttlMs ? `, longer than the ${fmtCount(input.ttlMs)} ms TTL` : '';
  return (
    `${who.process} was paused for ${fmtCount(dur)} ms (${pause.f}, ${fmtAt(pause.startMs)} → ${pause.endMs === null ? 'end' : fmtAt(pause.endMs)}) ` +
    `while holding the lock on account ${who.account}${who.token ? ` (token ${who.token})` : ''}${ttl}.`
  );
}

function lostUpdateFinding(input: StoryInput, group: LostUpdate[], n: number): Finding {
  const { index } = input;
  const first = group[0];
  const overPair = findWrite(index, first.overwrittenBy, first.overwrittenByOpIndex);
  const over = writeStory(input, first.overwrittenBy, overPair, 'overwrote');
  const lostRows = [...group].sort((a, b) => a.lost.writeId - b.lost.writeId);
  const lost = lostRows.map((lu) => writeStory(input, lu.lost, findWrite(index, lu.lost, lu.lostOpIndex), 'erased'));
  const l0 = lost[0];
  const acct = first.account;
  const sentences: string[] = [];

  // Why: a pause of either writer inside its critical section, else whatever faults were active.
  const overPause = pauseOn(input, over, first.overwrittenBy.process);
  const lostPause = pauseOn(input, l0, lostRows[0].lost.process);
  if (overPause) sentences.push(pauseSentence(input, over, overPause));
  if (lostPause && lostPause !== overPause) sentences.push(pauseSentence(input, l0, lostPause));
  if (!overPause && !lostPause) {
    const times = [over.acquiredAtMs, over.readAtMs, l0.acquiredAtMs, over.writeAtMs, l0.writeAtMs].filter(
      (t): t is number => t !== null,
    );
    const during = times.length ? faultsDuring(input.faults, Math.min(...times), Math.max(...times), index.endMs) : [];
    sentences.push(
      during.length
        ? `Active during these writes: ${during.map(faultLabel).join('; ')}.`
        : 'No fault was active during these writes.',
    );
  }

  // Who believed they held the lock.
  if (input.lock === 'none') {
    sentences.push('There is no lock (--lock=none): nothing kept the two critical sections apart.');
  } else if (over.acquiredAtMs !== null && l0.acquiredAtMs !== null) {
    const [e, l] = over.acquiredAtMs <= l0.acquiredAtMs ? [over, l0] : [l0, over];
    const both = e.writeAtMs !== null && l.acquiredAtMs !== null && e.writeAtMs > l.acquiredAtMs!;
    const at = (w: WriteStory) => `${w.process} since ${fmtAt(w.acquiredAtMs)}${w.token ? ` (token ${w.token})` : ''}`;
    sentences.push(
      both
        ? `Both believed they held the lock on account ${acct}: ${at(e)}, ${at(l)}.`
        : `${e.process} acquired the lock at ${fmtAt(e.acquiredAtMs)}, ${l.process} at ${fmtAt(l.acquiredAtMs)}.`,
    );
  }

  // The interleaving: the overwriter read before the lost write committed, and wrote after it.
  const readAt = over.readAtMs !== null ? ` at ${fmtAt(over.readAtMs)}` : '';
  const staleBy = (w: WriteStory) => {
    const prev =
      w.readWriteId !== null && w.readWriteId !== w.writeId - 1
        ? ledgerRow(index, w.account, w.writeId - 1)
        : undefined;
    return prev ? `, when the balance was already ${prev.to}` : '';
  };
  const fromBeforePause = (w: WriteStory, pause: FaultWindow | undefined) =>
    pause && w.readAtMs !== null
      ? `, computed from its read of ${w.readBalance} at ${fmtAt(w.readAtMs)}, before the pause${staleBy(w)}`
      : '';
  const overWrite = `${over.process} committed write #${over.writeId} (${over.from} → ${over.to})${over.writeAtMs !== null ? ` at ${fmtAt(over.writeAtMs)}` : ''}${fromBeforePause(over, overPause) || ', computed from its earlier read'}`;
  const sum = lost.reduce((s, w) => s + w.delta, 0);
  const ids = lost.length === 1 ? `#${l0.writeId}` : `#${l0.writeId}–#${lost[lost.length - 1].writeId}`;
  if (lost.length === 1) {
    sentences.push(
      `${over.process} read ${over.readBalance ?? over.from}${readAt}. ${l0.process} then committed write #${l0.writeId} (${l0.from} → ${l0.to}, ${fmtSigned(l0.delta)})` +
        `${l0.writeAtMs !== null ? ` at ${fmtAt(l0.writeAtMs)}` : ''}${fromBeforePause(l0, lostPause)}. ${overWrite}, so ${l0.process}'s ${fmtSigned(l0.delta)} was erased.`,
    );
  } else {
    const who = [...new Set(lost.map((w) => w.process))];
    sentences.push(
      `${over.process} read ${over.readBalance ?? over.from}${readAt}. Then ${lost.length} writes by ${who.join(', ')} committed (${ids}, ${fmtSigned(sum)} in total), the first at ${fmtAt(l0.writeAtMs)}. ` +
        `${overWrite}, so all ${lost.length} were erased.`,
    );
  }
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
  return {
    id: `lost-${n}`,
    kind: 'lost-update',
    severity: 'bad',
    title:
      lost.length === 1
        ? `Lost update on account ${acct}: ${l0.process}'s write #${l0.writeId} (${fmtSigned(l0.delta)}) erased by ${over.process}'s write #${over.writeId}`
        : `${lost.length} lost updates on account ${acct}: writes ${ids} (${fmtSigned(sum)}) erased by ${over.process}'s write #${over.writeId}`,
    sentences,
    writes: [over, ...lost],
    fromMs: times.length ? Math.min(...times) : 0,
    toMs: times.length ? Math.max(...times) : index.endMs,
    ops: [...over.ops, ...lost.flatMap((w) => w.ops)],
  };
}

/** Lost updates erased by the same write are one story: one stale write wipes out everything since its read. */
function groupLostUpdates(details: readonly LostUpdate[]): LostUpdate[][] {
  const groups = new Map<string, LostUpdate[]>();
  for (const lu of details) {
    const key = `${lu.account}:${lu.overwrittenBy.writeId}`;
    const g = groups.get(key) ?? [];
    g.push(lu);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * Confirmed overlaps that share one hold are one story: a paused holder overlaps every client that took the lock
 * during its pause. Overlap times are history times (ns since start), like every `time` in the journal.
 */
function overlapGroups(list: readonly Overlap[]): Overlap[][] {
  const groups = new Map<string, Overlap[]>();
  for (const o of list) {
    const key = `${o.account}:${o.a.process}:${o.a.acquireIndex}`;
    const g = groups.get(key) ?? [];
    g.push(o);
    groups.set(key, g);
  }
  return [...groups.values()];
}

function overlapFinding(input: StoryInput, group: Overlap[], n: number): Finding {
  const a = group[0].a;
  const account = group[0].account;
  const span = (x: Overlap['a']) => `${fmtAt(x.acquiredAt / 1e6)}–${fmtAt(x.releasedAt / 1e6)}`;
  const both = (o: Overlap) =>
    Math.max(0, Math.min(o.a.releasedAt, o.b.releasedAt) - Math.max(o.a.acquiredAt, o.b.acquiredAt)) / 1e6;
  const others = group.map((o) => `${processLabel(o.b.process)} (${span(o.b)}, both for ${fmtMs(both(o))})`);
  const sentences = [
    `${processLabel(a.process)} believed it held the lock on account ${account} from ${fmtAt(a.acquiredAt / 1e6)} to ${fmtAt(a.releasedAt / 1e6)}; ` +
      `${group.length === 1 ? 'so did' : `${group.length} other holders did too:`} ${others.slice(0, 6).join(', ')}${others.length > 6 ? ` and ${others.length - 6} more` : ''}.`,
  ];
  const evidence = [...new Set(group.map((o) => o.evidence).filter((e): e is string => typeof e === 'string'))];
  if (evidence.length > 0)
    sentences.push(
      `Confirmed by the ledger: ${evidence[0].replace(/\.$/, '')}${evidence.length > 1 ? ` (and ${evidence.length - 1} more like it)` : ''}.`,
    );
  else sentences.push('Confirmed: the resource saw their critical sections interleave.');
  const from = Math.min(...group.map((o) => Math.min(o.a.acquiredAt, o.b.acquiredAt))) / 1e6;
  const to = Math.max(...group.map((o) => Math.max(o.a.releasedAt, o.b.releasedAt))) / 1e6;
  const faults = faultsDuring(input.faults, from, to, input.index.endMs);
  if (faults.length > 0) sentences.push(`Active then: ${faults.map(faultLabel).join('; ')}.`);
  return {
    id: `overlap-${n}`,
    kind: 'overlap',
    severity: 'bad',
    title:
      group.length === 1
        ? `Two holders on account ${account} at once: ${processLabel(a.process)} and ${processLabel(group[0].b.process)} (confirmed)`
        : `${processLabel(a.process)}'s hold on account ${account} overlapped ${group.length} other holds (confirmed)`,
    sentences,
    fromMs: from,
    toMs: to,
    ops: [a.acquireIndex, ...group.map((o) => o.b.acquireIndex)].filter((i) => typeof i === 'number'),
  };
}

/**
 * Suspected overlaps (the clients' view only) are one note: a paused holder overlaps every client that took the
 * lock during its pause, and a card each would bury the anomalies.
 */
function suspectedOverlapsFinding(input: StoryInput, list: Overlap[]): Finding[] {
  if (list.length === 0) return [];
  const pairs = list
    .slice(0, 4)
    .map(
      (o) =>
        `${processLabel(o.a.process)} and ${processLabel(o.b.process)} on account ${o.account} (${fmtMs(Math.max(0, Math.min(o.a.releasedAt, o.b.releasedAt) - Math.max(o.a.acquiredAt, o.b.acquiredAt)) / 1e6)})`,
    );
  const from = Math.min(...list.map((o) => Math.min(o.a.acquiredAt, o.b.acquiredAt))) / 1e6;
  const to = Math.max(...list.map((o) => Math.max(o.a.releasedAt, o.b.releasedAt))) / 1e6;
  return [
    {
      id: 'overlaps-suspected',
      kind: 'overlap',
      severity: 'note',
      title: `${plural(list.length, 'suspected lock overlap')} (clients' view; no damage seen by the resource)`,
      sentences: [
        `Two clients believed they held the same lock at once: ${pairs.join('; ')}${list.length > 4 ? `; and ${list.length - 4} more` : ''}. ` +
          "The ledger shows no interleaved writes for these pairs, so they are not anomalies by themselves — but they show the lock's exclusion failing.",
      ],
      fromMs: from,
      toMs: to,
      ops: list.slice(0, 50).flatMap((o) => [o.a.acquireIndex, o.b.acquireIndex]),
    },
  ];
}

interface Regression {
  account: number;
  writeId: number;
  token: string;
  afterWriteId: number;
  afterToken: string;
}

/**
 * The fencing-order checker's regressions. None when the checker gave none (no results.json, or it crashed): the
 * report names what the checker found and never re-applies its rule.
 */
function regressions(input: StoryInput): Regression[] {
  const r = input.results.checkers?.['fencing-order'];
  if (!isRecord(r) || !Array.isArray(r.regressions)) return [];
  return r.regressions.filter(isRecord).map((x) => ({
    account: Number(x.account),
    writeId: Number(x.writeId),
    token: String(x.token),
    afterWriteId: Number(x.afterWriteId),
    afterToken: String(x.afterToken),
  }));
}

/** With --fencing, the resource must never accept a token lower than one it already accepted. */
function fencingViolations(input: StoryInput): Finding[] {
  if (!input.fencing) return [];
  return regressions(input).map((g, k) => {
    const w = input.index.writeById.get(g.writeId) ?? null;
    const prev = input.index.writeById.get(g.afterWriteId) ?? null;
    const who = (p: OpPair | null) => (p ? `${processLabel(p.process)}'s ` : '');
    return {
      id: `fence-${k + 1}`,
      kind: 'fencing-violation' as const,
      severity: 'bad' as const,
      title: `Fencing violation on account ${g.account}: token ${g.token} accepted after token ${g.afterToken}`,
      sentences: [
        `${who(w)}write #${g.writeId} carried token ${g.token}${w?.endMs != null ? ` and committed at ${fmtAt(w.endMs)}` : ''}, after ${who(prev)}write #${g.afterWriteId} with the newer token ${g.afterToken} had been accepted: the resource let a superseded holder write.`,
      ],
      fromMs: prev?.startMs ?? w?.startMs ?? 0,
      toMs: w?.endMs ?? input.index.endMs,
      ops: opIndexes(w, prev),
    };
  });
}

const ledgerMaps = new WeakMap<RunIndex, Map<string, LedgerRow>>();

/** A ledger row by account and write id, from the harness's final reads (a map per index: runs lose thousands). */
function ledgerRow(index: RunIndex, account: number, writeId: number): LedgerRow | undefined {
  let rows = ledgerMaps.get(index);
  if (!rows) {
    rows = new Map();
    for (const fr of index.finalReads) for (const r of fr.ledger) rows.set(`${r.account}/${r.writeId}`, r);
    ledgerMaps.set(index, rows);
  }
  return rows.get(`${account}/${writeId}`);
}

function outcomeAfterPause(
  index: RunIndex,
  write: OpPair | null,
  lostByWriter: Map<number, LostUpdate[]>,
  lostById: Map<number, LostUpdate>,
): string {
  if (!write) return 'It did not write again before the run ended.';
  const v = pairValue(write) as Partial<WriteValue>;
  const what = `${v.to ?? '?'}${typeof v.from === 'number' && typeof v.delta === 'number' ? ` (${v.from} ${fmtSigned(v.delta)})` : ''}`;
  const tok = v.token ? ` with token ${v.token}` : '';
  const err = write.completion?.error;
  switch (write.outcome) {
    case 'ok': {
      const id = typeof v.writeId === 'number' ? v.writeId : null;
      const parts = [
        `When it resumed it wrote ${what}${tok} (write #${id ?? '?'}) at ${fmtAt(write.endMs)}, computed from its read from before the pause`,
      ];
      if (id !== null && typeof v.basedOn === 'number' && typeof v.account === 'number') {
        const between = id - v.basedOn - 1;
        const prev = ledgerRow(index, v.account, id - 1);
        if (between > 0)
          parts[0] += `; ${plural(between, 'other write')} had committed since that read${prev && prev.writeId !== v.basedOn ? ` and the balance was ${prev.to}` : ''}`;
      }
      const erased = id !== null ? lostByWriter.get(id) : undefined;
      const self = id !== null ? lostById.get(id) : undefined;
      let tail = '.';
      if (erased && erased.length > 0) {
        const names = erased
          .slice(0, 4)
          .map((lu) => `${processLabel(lu.lost.process)}'s write #${lu.lost.writeId} (${fmtSigned(lu.lost.delta)})`)
          .join(', ');
        tail = `. It erased ${names}${erased.length > 4 ? ` and ${erased.length - 4} more` : ''}.`;
      } else if (self) {
        tail = `. ${processLabel(self.overwrittenBy.process)}'s write #${self.overwrittenBy.writeId}, computed from a read taken before it, then erased it in turn: its ${fmtSigned(self.lost.delta)} is lost.`;
      } else if (id !== null) {
        tail = '. No update was lost as a result.';
      }
      return parts[0] + tail;
    }
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

/** Every pause of a client, told from the paused process's side: what it held, who took over, what it did next. */
function pausedHolderFindings(input: StoryInput): Finding[] {
  const { index } = input;
  const lostByWriter = new Map<number, LostUpdate[]>();
  const lostById = new Map<number, LostUpdate>();
  for (const lu of input.results.lostUpdateDetails ?? []) {
    lostById.set(lu.lost.writeId, lu);
    const list = lostByWriter.get(lu.overwrittenBy.writeId) ?? [];
    list.push(lu);
    lostByWriter.set(lu.overwrittenBy.writeId, list);
  }
  const out: Finding[] = [];
  for (const w of input.faults.filter(isPause)) {
    for (const p of w.processes) {
      const pairs = index.byProcess.get(p) ?? [];
      const endMs = w.endMs ?? index.endMs;
      const dur = faultDurationMs(w, index.endMs);
      // The lock it held when it was stopped: its last ok acquire before the pause with no release after it.
      let held: OpPair | null = null;
      let heldRead: OpPair | null = null;
      for (const q of pairs) {
        if (q.startMs > w.startMs) break;
        if (q.f === 'acquire' && q.outcome === 'ok') {
          held = q;
          heldRead = null;
        } else if (q.f === 'release') held = null;
        else if (q.f === 'read' && q.outcome === 'ok') heldRead = q;
      }
      const pid = w.pids.length > 0 ? ` (pid ${w.pids.join(', ')})` : '';
      const name = processLabel(p);
      if (!held) {
        out.push({
          id: `pause-${out.length + 1}`,
          kind: 'paused-holder',
          severity: 'note',
          title: `${name} paused for ${fmtCount(dur)} ms at ${fmtAt(w.startMs)} (${w.f}), not holding a lock`,
          sentences: [
            `${name}${pid} was paused for ${fmtCount(dur)} ms from ${fmtAt(w.startMs)} while it held no lock.`,
          ],
          fromMs: w.startMs,
          toMs: endMs,
          ops: w.startIndex !== undefined ? [w.startIndex] : [],
        });
        continue;
      }
      const account = held.account ?? 0;
      const hv = pairValue(held);
      const token = str(hv.token);
      const ttl =
        input.ttlMs !== null
          ? dur > input.ttlMs
            ? `, longer than the ${fmtCount(input.ttlMs)} ms TTL`
            : `, within the ${fmtCount(input.ttlMs)} ms TTL`
          : '';
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
        `${name}${pid} was paused for ${fmtCount(dur)} ms (${fmtAt(w.startMs)} → ${w.endMs === null ? 'end' : fmtAt(w.endMs)}) while holding the lock on account ${account}` +
          `${token ? ` (token ${token}, acquired at ${fmtAt(held.endMs)})` : ` (acquired at ${fmtAt(held.endMs)})`}${ttl}` +
          `${heldRead ? `, after reading ${str(pairValue(heldRead).balance) ?? '?'}` : ''}.`,
      ];
      if (takers.length > 0) {
        const t = takers
          .slice(0, 3)
          .map(
            (q) =>
              `${processLabel(q.process)} at ${fmtAt(q.endMs)}${str(pairValue(q).token) ? ` (token ${str(pairValue(q).token)})` : ''}`,
          );
        sentences.push(
          `Meanwhile the lock was granted to ${t.join(', ')}${takers.length > 3 ? ` and ${takers.length - 3} more` : ''}.`,
        );
      } else {
        sentences.push('Nobody else acquired that lock before it wrote.');
      }
      sentences.push(outcomeAfterPause(index, nextWrite, lostByWriter, lostById));
      const nextId = nextWrite ? Number((pairValue(nextWrite) as Partial<WriteValue>).writeId) : NaN;
      const bad = nextWrite?.outcome === 'ok' && (lostByWriter.has(nextId) || lostById.has(nextId));
      const good = nextWrite?.outcome === 'fail';
      out.push({
        id: `pause-${out.length + 1}`,
        kind: 'paused-holder',
        severity: bad ? 'bad' : good ? 'good' : 'note',
        title: `${name} paused for ${fmtCount(dur)} ms at ${fmtAt(w.startMs)} while holding the lock on account ${account} (${w.f})`,
        sentences,
        fromMs: held.startMs,
        toMs: Math.max(endMs, nextWrite?.endMs ?? 0),
        ops: [
          ...(w.startIndex !== undefined ? [w.startIndex] : []),
          ...opIndexes(held, heldRead, nextWrite),
          ...takers.flatMap((q) => opIndexes(q)),
        ],
      });
    }
  }
  return out;
}

function staleWriteFinding(input: StoryInput): Finding[] {
  const stale = input.index.pairs.filter(
    (p) => p.f === 'write' && p.outcome === 'fail' && p.completion?.error === 'stale-token',
  );
  if (stale.length === 0) return [];
  const shown = stale.slice(0, 3).map((p) => {
    const v = pairValue(p) as Partial<WriteValue>;
    return `${processLabel(p.process)}'s write of ${v.to ?? '?'}${v.token ? ` with token ${v.token}` : ''} at ${fmtAt(p.endMs)}`;
  });
  return [
    {
      id: 'stale-writes',
      kind: 'stale-writes',
      severity: 'good',
      title: `Fencing rejected ${plural(stale.length, 'stale write')}`,
      sentences: [
        `The resource refused writes from holders whose token had been superseded: ${shown.join('; ')}${stale.length > 3 ? `; and ${stale.length - 3} more` : ''}.`,
      ],
      fromMs: stale[0].startMs,
      toMs: stale[Math.min(2, stale.length - 1)].endMs ?? input.index.endMs,
      ops: stale.slice(0, 20).flatMap((p) => opIndexes(p)),
    },
  ];
}

function checkerFindings(input: StoryInput): Finding[] {
  const out: Finding[] = [];
  for (const [name, r] of Object.entries(input.results.checkers ?? {})) {
    if (!isRecord(r)) continue;
    if (name === 'linearizable' && r.valid === false) {
      const cx = isRecord(r.counterexample) ? r.counterexample : {};
      const window = Array.isArray(cx.window) ? cx.window.filter((i): i is number => typeof i === 'number') : [];
      const times = window.map((i) => input.index.byIndex.get(i)?.startMs).filter((t): t is number => t !== undefined);
      out.push({
        id: 'linearizability',
        kind: 'linearizability',
        severity: 'bad',
        title: `Not linearizable${typeof r.model === 'string' ? ` (model: ${r.model})` : ''}`,
        sentences: [
          typeof cx.message === 'string'
            ? cx.message
            : 'The linearizability checker found no valid order; see the counterexample below.',
        ],
        fromMs: times.length ? Math.min(...times) : 0,
        toMs: times.length ? Math.max(...times) : input.index.endMs,
        ops: window,
      });
    }
    if (r.valid === 'unknown') {
      const why =
        typeof r.error === 'string'
          ? r.error
          : typeof r.cause === 'string'
            ? r.cause
            : typeof r.reason === 'string'
              ? r.reason
              : 'no reason given';
      out.push({
        id: `undecided-${name}`,
        kind: 'undecided',
        severity: 'note',
        title: `${name}: could not decide`,
        sentences: [`The ${name} checker returned unknown: ${why}.`],
        fromMs: 0,
        toMs: input.index.endMs,
        ops: [],
      });
    }
  }
  return out;
}

function cleanFinding(input: StoryInput): Finding {
  const writes = input.index.pairs.filter((p) => p.f === 'write' && p.outcome === 'ok').length;
  const sentences = [`The checkers found nothing wrong in ${plural(writes, 'committed write')}.`];
  for (const fr of input.index.finalReads) {
    const sum = fr.ledger.reduce((s, r) => s + r.delta, 0);
    const expected = fr.initialBalance + sum;
    sentences.push(
      expected === fr.balance
        ? `Account ${fr.account}: final balance ${fr.balance} = opening ${fr.initialBalance} + the ${plural(fr.ledger.length, 'committed delta')} (${fmtSigned(sum)}).`
        : `Account ${fr.account}: final balance ${fr.balance}, but opening ${fr.initialBalance} + committed deltas = ${expected}.`,
    );
  }
  return {
    id: 'clean',
    kind: 'clean',
    severity: 'good',
    title: 'No anomalies',
    sentences,
    fromMs: 0,
    toMs: input.index.endMs,
    ops: [],
  };
}

/** All findings, anomalies first (lost updates, overlaps, fencing violations, linearizability), then context. */
export function findings(input: StoryInput): Finding[] {
  const lost = groupLostUpdates(input.results.lostUpdateDetails ?? []).map((g, i) =>
    lostUpdateFinding(input, g, i + 1),
  );
  const details = input.results.overlapDetails ?? [];
  const overlaps = overlapGroups(details.filter((o) => o.kind === 'confirmed')).map((g, i) =>
    overlapFinding(input, g, i + 1),
  );
  const suspected = suspectedOverlapsFinding(
    input,
    details.filter((o) => o.kind !== 'confirmed'),
  );
  const fences = fencingViolations(input);
  const checkers = checkerFindings(input);
  const pauses = pausedHolderFindings(input);
  const stale = staleWriteFinding(input);
  const bad = [...lost, ...overlaps, ...fences, ...checkers.filter((c) => c.severity === 'bad')];
  const rest = [...pauses, ...stale, ...suspected, ...checkers.filter((c) => c.severity !== 'bad')];
  if (bad.length === 0 && input.results.valid !== false) rest.unshift(cleanFinding(input));
  return [...bad, ...rest];
}

/** The verdict as one line: what a person should take away before reading anything else. */
export function headline(results: Partial<RunResults>, all: readonly Finding[]): string {
  const lost = results.lostUpdates ?? (results.lostUpdateDetails ?? []).length;
  const parts: string[] = [];
  if (lost > 0) parts.push(plural(lost, 'lost update'));
  const confirmed =
    results.confirmedOverlaps ?? (results.overlapDetails ?? []).filter((o) => o.kind === 'confirmed').length;
  if (confirmed > 0) parts.push(plural(confirmed, 'confirmed lock overlap'));
  const fences = all.filter((f) => f.kind === 'fencing-violation').length;
  if (fences > 0) parts.push(plural(fences, 'fencing violation'));
  const tokenViolations = results.checkers?.['token-order']?.violations;
  if (Array.isArray(tokenViolations) && tokenViolations.length > 0)
    parts.push(plural(tokenViolations.length, 'token-order violation'));
  if (all.some((f) => f.kind === 'linearizability')) parts.push('not linearizable');
  if (results.valid === false) return parts.length > 0 ? parts.join(', ') : 'a checker found the history invalid';
  if (results.valid === 'unknown') {
    // The run's own reasons first (no progress, a targeted fault that never hit…): they say why nothing was
    // proven; then the checkers that could not decide.
    const why = [
      ...(Array.isArray(results.unknownReasons) ? results.unknownReasons.map(String) : []),
      ...all.filter((f) => f.kind === 'undecided').map((f) => f.title),
    ];
    return `undecided${why.length ? `: ${why.join('; ')}` : ''}${parts.length ? ` (${parts.join(', ')})` : ''}`;
  }
  const stale = results.staleWritesRejected ?? 0;
  return `no anomalies${stale > 0 ? `; fencing rejected ${plural(stale, 'stale write')}` : ''}`;
}
