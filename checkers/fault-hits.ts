import type { AccountRef, NemesisValue } from '../history/bank.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { FaultAim } from '../nemesis/fault-aim.ts';
import { isRecord } from '../common/is-record.ts';

/**
 * The faults that aim at the lock: each must land while a holder is inside its critical section (and, for the
 * Redis ones, on the nodes that hold its key), or it tested nothing. The others (pause-client, partition, …)
 * strike at random on purpose and are only counted.
 */
export const TARGETED_FAULTS = ['pause-holder', 'restart-empty', 'clock', 'delay-write'] as const;

/** One injection of a targeted fault (a `start` record) and what the history says it did. */
export interface FaultShot {
  /** History index of the fault's `start` record. */
  index: number;
  hit: boolean;
  /** For a hit, what it struck and the holder it caught; for a miss, why it is not a hit. */
  evidence: string;
}

/** Per fault, in `results.json`: how often it fired, how often it hit, and each shot's evidence. */
export interface FaultHitCount {
  fired: number;
  /** Null for a fault that does not aim at the lock: there is nothing for it to hit. */
  hit: number | null;
  shots: FaultShot[];
}

const isTargeted = (f: string): boolean => (TARGETED_FAULTS as readonly string[]).includes(f);

function readAim(v: unknown): FaultAim | null {
  if (!isRecord(v)) return null;
  const { process, account, readIndex, atIndex } = v;
  if (![process, account, readIndex, atIndex].every((n) => typeof n === 'number' && Number.isInteger(n))) return null;
  return v as unknown as FaultAim;
}

/**
 * Whether one `start` record of a targeted fault hit, from its `aim` (recorded when it struck) checked against
 * the history itself: the holder's `read` ok is there, the holder started nothing between that read and the
 * moment the fault struck — so it was still inside its critical section — and every node struck had the lock
 * key, as many of them as breaking the lock needs. Decided by the ops' times when the aim has them (the history
 * is renumbered when it is put in time order after the run), by journal index for runs recorded before that.
 */
function judge(start: Op, history: History, byProcess: Map<number, Op[]>): FaultShot {
  const miss = (why: string): FaultShot => ({ index: start.index, hit: false, evidence: why });
  const v = (isRecord(start.value) ? start.value : {}) as Partial<NemesisValue>;
  const aim = readAim(isRecord(v.params) ? v.params.aim : undefined);
  if (!aim) return miss('no aim recorded with it (a run from before fencepost recorded where faults landed)');
  const p = `p${aim.process}`;
  const own = byProcess.get(aim.process) ?? [];
  const byTime = typeof aim.readTime === 'number' && typeof aim.atTime === 'number';
  const read = byTime ? own.find((op) => op.time === aim.readTime && op.f === 'read') : history.op(aim.readIndex);
  if (
    !read ||
    read.process !== aim.process ||
    read.f !== 'read' ||
    read.type !== 'ok' ||
    (read.value as Partial<AccountRef> | null)?.account !== aim.account
  ) {
    const which = byTime
      ? `the history has no read of account ${aim.account} by ${p} at ${(aim.readTime! / 1e6).toFixed(1)} ms`
      : `history #${aim.readIndex} is not ${p}'s read of account ${aim.account}`;
    return miss(`${which}, which the fault says it caught`);
  }
  // A process's ops are in its own order in either numbering: the one after its read is what it did next.
  const next = own[own.indexOf(read) + 1];
  const strikeAt = byTime ? `${(aim.atTime! / 1e6).toFixed(1)} ms` : `#${aim.atIndex}`;
  if (next !== undefined && (byTime ? next.time <= aim.atTime! : next.index < aim.atIndex)) {
    return miss(
      `${p} had left its critical section (#${next.index}: ${next.f} ${next.type}) before the fault struck (at ${strikeAt})`,
    );
  }
  const struck = aim.struck ?? [];
  let keys = '';
  if (aim.keysOn) {
    const bare = struck.filter((n) => !(aim.keysOn![n]?.length > 0));
    if (!struck.length) return miss('it struck no node');
    if (bare.length) return miss(`${bare.join(', ')} held no lock key of account ${aim.account} when struck`);
    if (aim.needed !== undefined && struck.length < aim.needed)
      return miss(`it struck ${struck.length} of the ${aim.needed} nodes the lock needed broken`);
    keys = `; ${struck.map((n) => `${n} held ${aim.keysOn![n].join(', ')}`).join(', ')}`;
  }
  const what =
    start.f === 'pause-holder'
      ? `paused ${p}`
      : start.f === 'restart-empty'
        ? `killed ${struck.join(', ')}`
        : `jumped the clock of ${struck.join(', ')}`;
  return {
    index: start.index,
    hit: true,
    evidence: `${what} while ${p} was inside its critical section on account ${aim.account} (read #${read.index}, struck at ${strikeAt})${keys}`,
  };
}

/**
 * delay-write decides its hit when it heals — whether the holder's write was sent into the hold and was still
 * undelivered when the hold ended — and says so in its `end` record (`hit`, the write's index, how long it was
 * held): the history alone shows it, the client's `write` invoke and its late completion included.
 */
function judgeByEnd(start: Op, end: Op | undefined): FaultShot {
  const params =
    isRecord(end?.value) && isRecord((end.value as Record<string, unknown>).params)
      ? ((end.value as Record<string, unknown>).params as Record<string, unknown>)
      : null;
  const note =
    isRecord(end?.value) && typeof (end.value as Record<string, unknown>).note === 'string'
      ? String((end.value as Record<string, unknown>).note)
      : '';
  if (!params)
    return { index: start.index, hit: false, evidence: 'no end record: the run ended before the hold was released' };
  if (params.hit !== true)
    return { index: start.index, hit: false, evidence: note || 'the holder sent no write into the hold' };
  return {
    index: start.index,
    hit: true,
    evidence: `held p${String(params.process)}'s traffic on account ${String(params.account)}: ${note}`,
  };
}

/** Fired and hit counts per fault, from the `start` records of the nemesis in the history. Pure. */
export function faultHits(input: History | readonly Op[]): Record<string, FaultHitCount> {
  const h = History.of(input);
  const history = h.ops;
  const byProcess = new Map<number, Op[]>();
  for (const op of history) {
    if (typeof op.process === 'number') {
      const list = byProcess.get(op.process) ?? [];
      list.push(op);
      byProcess.set(op.process, list);
    }
  }
  const out: Record<string, FaultHitCount> = {};
  for (const op of history) {
    if (op.process !== 'nemesis' || (op.value as Partial<NemesisValue> | null)?.phase !== 'start') continue;
    const count = (out[op.f] ??= { fired: 0, hit: isTargeted(op.f) ? 0 : null, shots: [] });
    count.fired++;
    if (!isTargeted(op.f)) continue;
    const shot = op.f === 'delay-write' ? judgeByEnd(op, endOf(history, op)) : judge(op, h, byProcess);
    count.shots.push(shot);
    if (shot.hit) count.hit!++;
  }
  return out;
}

/** The `end` record that closes the injection `start` (the next one of the same fault: a fault never overlaps itself). */
function endOf(history: readonly Op[], start: Op): Op | undefined {
  for (let i = history.indexOf(start) + 1; i < history.length; i++) {
    const op = history[i];
    if (op.process === 'nemesis' && op.f === start.f && (op.value as Partial<NemesisValue> | null)?.phase === 'end')
      return op;
  }
  return undefined;
}

const NEVER: Record<(typeof TARGETED_FAULTS)[number], string> = {
  'delay-write': "held the holder's write in flight",
  'pause-holder': 'caught a holder inside its critical section',
  'restart-empty': 'killed the Redis nodes holding the lock key while its holder was inside its critical section',
  clock: 'jumped the clock of a node holding the lock while its holder was inside its critical section',
};

/**
 * Why the verdict can't be `valid`: each targeted fault of the run (`runFaults`, the run's fault list) that never
 * hit. A lock that survived a fault that never landed survived nothing. Pure; one reason string per fault.
 */
export function faultHitReasons(hits: Readonly<Record<string, FaultHitCount>>, runFaults: readonly string[]): string[] {
  const reasons: string[] = [];
  for (const f of TARGETED_FAULTS) {
    if (!runFaults.includes(f)) continue;
    const c = hits[f];
    if (!c || c.fired === 0) {
      reasons.push(
        `${f} never fired: the history has no injection of it (the run ended before its turn, or no client entered its critical section with its lock where the fault could reach it: see the run's log); run longer or lower --nemesis-interval`,
      );
    } else if (!c.hit) {
      const first = c.shots.find((s) => !s.hit);
      reasons.push(
        `${f} fired ${c.fired} time${c.fired === 1 ? '' : 's'} but never ${NEVER[f]}${first ? ` (first miss, #${first.index}: ${first.evidence})` : ''}`,
      );
    }
  }
  return reasons;
}
