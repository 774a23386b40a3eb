import type { AccountRef, ChurnRound, NemesisValue } from '../history/bank.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { FaultAim } from '../history/fault-aim.ts';
import { CLIENT_EXITED } from '../history/client-exit.ts';
import { faultFacts, shimCannotMove, type FaultName } from '../history/fault-catalogue.ts';
import { isRecord } from '../common/is-record.ts';

/** One injection of a fault (a `start` record) and what the history says it did. */
export interface FaultShot {
  /** History index of the fault's `start` record. */
  index: number;
  hit: boolean;
  /** For a hit, what it acted on (and the holder it caught, for a fault aimed at one); for a miss, why it is not a hit. */
  evidence: string;
}

/**
 * Per fault, in the run's results: how often it fired, how often it acted (by the fault's own evidence: see JUDGES),
 * and each shot's evidence. `hit` is a number for every fault: a fault that fired but did nothing tested nothing.
 */
export interface FaultHitCount {
  fired: number;
  hit: number;
  shots: FaultShot[];
}

function readAim(v: unknown): FaultAim | null {
  if (!isRecord(v)) return null;
  const { process, account, readIndex, atIndex } = v;
  if (![process, account, readIndex, atIndex].every((n) => typeof n === 'number' && Number.isInteger(n))) return null;
  return v as unknown as FaultAim;
}

/**
 * Whether one `start` record of a fault aimed at the lock (its catalogue row has an `aim`) hit, from its `aim` (recorded when it struck) checked against
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
  const what = (faultFacts(start.f)?.aim?.struck ?? 'struck {nodes}')
    .replace('{process}', p)
    .replace('{nodes}', struck.join(', '));
  return {
    index: start.index,
    hit: true,
    evidence: `${what} while ${p} was inside its critical section on account ${aim.account} (read #${read.index}, struck at ${strikeAt})${keys}`,
  };
}

/**
 * After a failover that struck a holder inside its section: the first other client to win the holder's account
 * on the promoted replica before the holder's release completed (the eraser's acquire, when an update was lost),
 * or that nobody did. A suffix for the hit's evidence.
 */
function secondHolder(start: Op, h: History, byProcess: Map<number, Op[]>): string {
  const p = paramsOf(start);
  const aim = readAim(p.aim);
  if (!aim) return '';
  const promoted = targetsOf(start)
    .find((t) => t.includes('promoted'))
    ?.split(' ')[0];
  const holder = `p${aim.process}`;
  const release = (byProcess.get(aim.process) ?? []).find(
    (op) => op.index > start.index && op.f === 'release' && op.type !== 'invoke',
  );
  const until = release?.index ?? Infinity;
  const other = h.ops.find(
    (op) =>
      op.index > start.index &&
      op.index < until &&
      op.f === 'acquire' &&
      op.type === 'ok' &&
      op.process !== aim.process &&
      (op.value as Partial<AccountRef> | null)?.account === aim.account,
  );
  const released = release ? `${holder} released it (#${release.index})` : `${holder} released it (it never did)`;
  return other
    ? `; p${String(other.process)} then acquired account ${aim.account} on the promoted ${promoted ?? 'replica'} (#${other.index}) before ${released}`
    : `; no other client acquired account ${aim.account} before ${released}`;
}

type Params = Record<string, unknown>;

function paramsOf(op: Op | undefined): Params {
  const v = isRecord(op?.value) ? (op.value as Record<string, unknown>) : {};
  return isRecord(v.params) ? (v.params as Params) : {};
}

function noteOf(op: Op | undefined): string {
  const v = isRecord(op?.value) ? (op.value as Record<string, unknown>) : {};
  return typeof v.note === 'string' ? v.note : '';
}

function targetsOf(op: Op): string[] {
  const v = isRecord(op.value) ? (op.value as Record<string, unknown>) : {};
  return Array.isArray(v.targets) ? v.targets.map(String) : [];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * How long the pause (or hold) lasted against the lease it had to outlive: the run's TTL, which is also the etcd
 * lease and the ZooKeeper session timeout. A pause shorter than that leaves the lease alive: the lock was never
 * put to the test.
 */
function shorterThanTtl(heldMs: number | undefined, ttlMs: number | undefined, what: string): string | null {
  if (heldMs === undefined || ttlMs === undefined) return null;
  return heldMs < ttlMs ? `${what} ${heldMs} ms, shorter than the TTL (${ttlMs} ms): the lease outlived it` : null;
}

/**
 * delay-write decides its hit when it heals — whether the holder's write was sent into the hold and was still
 * undelivered when the hold ended — and says so in its `end` record (`hit`, the write's index, how long it was
 * held): the history alone shows it, the client's `write` invoke and its late completion included. A hold the
 * run's end cut short (`cutShort`), or a write held less than the TTL, is a miss: the lease may not have run out
 * before the write arrived.
 */
function judgeByEnd(start: Op, end: Op | undefined): FaultShot {
  const miss = (why: string): FaultShot => ({ index: start.index, hit: false, evidence: why });
  if (!end) return miss('no end record: the run ended before the hold was released');
  const params = paramsOf(end);
  const note = noteOf(end);
  if (params.hit !== true) return miss(note || 'the holder sent no write into the hold');
  if (params.cutShort === true)
    return miss(`the run's end cut the hold short (${note}): the write may have arrived before the lease ran out`);
  const short = shorterThanTtl(num(params.writeHeldMs), num(paramsOf(start).ttlMs), 'the write was held');
  if (short) return miss(short);
  return {
    index: start.index,
    hit: true,
    evidence: `held p${String(params.process)}'s traffic on account ${String(params.account)}: ${note}`,
  };
}

/** What one shot of a fault did, from its `start` record, its `end` record and the history. Pure. */
type Judge = (start: Op, end: Op | undefined, history: History, byProcess: Map<number, Op[]>) => FaultShot;

/**
 * A client with a lock process (a lock in another language) is paused only when both are: a lock process that ran on
 * kept its session or lease alive, so the pause tested nothing. Null when it was stopped too, or there is none.
 */
function lockProcessRanOn(p: Record<string, unknown>): string | null {
  return p.lockStopped === false
    ? `its lock process (pid ${String(p.lockPid)}) was not stopped with it: the lock's own threads kept running`
    : null;
}

const hitOrMiss = (start: Op, why: string | null, evidence: string): FaultShot => ({
  index: start.index,
  hit: why === null,
  evidence: why ?? evidence,
});

/** Bytes a proxy fault held or delayed, from its end record (`heldBytes`: per proxy). */
function judgeBytes(verb: string): Judge {
  return (start, end) => {
    if (!end) return hitOrMiss(start, 'no end record: the run ended before it was healed', '');
    const held = paramsOf(end).heldBytes;
    const per = isRecord(held) ? Object.entries(held).map(([k, v]) => [k, num(v) ?? 0] as const) : [];
    const total = per.reduce((a, [, n]) => a + n, 0);
    if (!isRecord(held))
      return hitOrMiss(start, 'its end record counts no bytes (a run from before the proxies counted them)', '');
    return hitOrMiss(
      start,
      total > 0 ? null : `no client sent a byte through ${per.map(([k]) => k).join(', ') || 'its proxies'} meanwhile`,
      `${verb} ${total} bytes (${per
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')})`,
    );
  };
}

/**
 * A server↔server partition (isolate-leader, majority-minority, bridge, majorities-ring) acted when its drops held
 * bytes between the sides (its end record's `totalHeldBytes`, read from the nftables counters before the heal):
 * the members tried to talk across the cut and could not. How the members saw the ensemble at the start and just
 * before the heal (a leader change, a minority without a leader) is part of the evidence, not the rule: a
 * partition shorter than an election timeout still held heartbeats.
 */
function judgeServerPartition(start: Op, end: Op | undefined): FaultShot {
  if (!end) return hitOrMiss(start, 'no end record: the run ended before the partition was healed', '');
  const s = paramsOf(start);
  const e = paramsOf(end);
  const total = num(e.totalHeldBytes);
  if (total === undefined) return hitOrMiss(start, 'its end record counts no held bytes', '');
  const sides = Array.isArray(s.sides)
    ? s.sides.map((side) => {
        const v = isRecord(side) ? side : {};
        const members = Array.isArray(v.members) ? v.members.map(String) : [];
        const clients = Array.isArray(v.clients) ? v.clients.map(String) : [];
        return `{${members.join(', ')}}${clients.length ? ` with ${clients.join(', ')}` : ' (no client connected)'}`;
      })
    : [];
  const views = (v: unknown) =>
    isRecord(v)
      ? Object.entries(v)
          .map(([k, x]) => `${k}: ${String(x)}`)
          .join(', ')
      : '';
  const leader = typeof s.leader === 'string' ? `; leader ${s.leader} at the start` : '';
  const during = views(e.viewsDuring);
  return hitOrMiss(
    start,
    total > 0 ? null : `no member sent a byte across the cut (${sides.join(' | ') || 'no sides recorded'}) meanwhile`,
    `held ${total} bytes in ${num(e.heldPackets) ?? '?'} packets between ${sides.join(' and ')}${leader}${during ? `; before the heal: ${during}` : ''}`,
  );
}

/**
 * The faults whose evidence needs a judge of their own: what it must show for a shot to count. Any other fault of
 * the catalogue is judged by DEFAULT_JUDGE; a name the catalogue does not know (from a newer fencepost) is a miss,
 * said so.
 */
export const JUDGES: Readonly<Partial<Record<FaultName, Judge>>> = {
  'pause-holder': (start, _end, h, byProcess) => {
    const shot = judge(start, h, byProcess);
    if (!shot.hit) return shot;
    const p = paramsOf(start);
    const lockMissed = lockProcessRanOn(p);
    if (lockMissed) return { ...shot, hit: false, evidence: lockMissed };
    const short = shorterThanTtl(num(p.durationMs), num(p.ttlMs), 'it paused the holder');
    if (short) return { ...shot, hit: false, evidence: short };
    return p.lockStopped === true
      ? { ...shot, evidence: `${shot.evidence}, its lock process (pid ${String(p.lockPid)}) with it` }
      : shot;
  },
  'kill-holder': (start, _end, h, byProcess) => {
    const shot = judge(start, h, byProcess);
    if (!shot.hit) return shot;
    // The aim says it was inside its critical section; the history must also show the process died there.
    const aim = readAim(paramsOf(start).aim)!;
    const died = (byProcess.get(aim.process) ?? []).some(
      (op) => op.type === 'info' && op.error === CLIENT_EXITED && op.time >= (aim.atTime ?? 0),
    );
    return died
      ? shot
      : { ...shot, hit: false, evidence: `p${aim.process} has no client exit after the kill: it did not die there` };
  },
  'kill-session': (start, _end, h, byProcess) => {
    const shot = judge(start, h, byProcess);
    if (!shot.hit) return shot;
    // Inside the section is not enough: a session holding the holder's advisory lock must have been there to end.
    const backends = paramsOf(start).backends;
    return Array.isArray(backends) && backends.length > 0
      ? { ...shot, evidence: `${shot.evidence}; backend ${backends.join(', ')} ended` }
      : {
          ...shot,
          hit: false,
          evidence: `no session of p${readAim(paramsOf(start).aim)!.process} held an advisory lock: nothing was ended`,
        };
  },
  clock: (start, _end, h, byProcess) => {
    // A run from before clock was refused for etcd: its jump on an etcd member moved nothing (shimCannotMove).
    const struck = readAim(paramsOf(start).aim)?.struck ?? [];
    if (struck.length && struck.every((n) => /^etcd\[\d+\]$/.test(n)))
      return hitOrMiss(start, `it struck ${struck.join(', ')}: ${shimCannotMove('etcd')}`, '');
    return judge(start, h, byProcess);
  },
  'delay-write': (start, end) => judgeByEnd(start, end),
  'pause-node': (start) => {
    const p = paramsOf(start);
    const pids = Array.isArray(p.pids) ? p.pids : [];
    const target = targetsOf(start).join(', ');
    if (!pids.length || p.stopped === false)
      return hitOrMiss(start, `it stopped no live process of ${target || 'any server'}`, '');
    const leader = p.leader === true ? ', the leader' : p.leader === false ? ', not the leader' : '';
    return hitOrMiss(start, null, `stopped ${target} (pid ${pids.join(', ')}${leader})`);
  },
  'leader-churn': (start, end) => {
    const target = targetsOf(start).join(', ');
    if (!end) return hitOrMiss(start, `the run ended before the churn that began with ${target} was healed`, '');
    const rounds = (Array.isArray(paramsOf(end).rounds) ? paramsOf(end).rounds : []) as Partial<ChurnRound>[];
    const changes = rounds.filter((r) => typeof r.next === 'string' && r.next !== r.stopped);
    if (!changes.length)
      return hitOrMiss(
        start,
        rounds.length
          ? `no other member took over while ${rounds.map((r) => `${String(r.stopped)} was stopped ${String(r.stoppedMs)} ms`).join(', ')}`
          : `no round was recorded for ${target}`,
        '',
      );
    return hitOrMiss(
      start,
      null,
      `${changes.length} leader change${changes.length > 1 ? 's' : ''}: ${changes.map((r) => `${String(r.stopped)} stopped → ${String(r.next)} led after ${String(r.stoppedMs)} ms`).join('; ')}`,
    );
  },
  'pause-client': (start) => {
    const p = paramsOf(start);
    const target = targetsOf(start).join(', ');
    if (p.stopped !== true)
      return hitOrMiss(start, `${target || 'the client'} was not a live process when stopped`, '');
    return hitOrMiss(start, lockProcessRanOn(p), `stopped ${target}`);
  },
  kill: (start, end) => {
    const target = targetsOf(start).join(', ');
    if (!end) return hitOrMiss(start, `the run ended before ${target} was restarted`, '');
    const p = paramsOf(end);
    if (p.rejoined !== true)
      return hitOrMiss(
        start,
        `${target} was killed but did not answer a probe after its restart${noteOf(end) ? ` (${noteOf(end)})` : ''}`,
        '',
      );
    return hitOrMiss(
      start,
      null,
      `killed ${target}; it restarted with its data and answered a probe ${String(p.restartedInMs)} ms later`,
    );
  },
  partition: judgeBytes('held'),
  'isolate-leader': (start, end) => judgeServerPartition(start, end),
  'majority-minority': (start, end) => judgeServerPartition(start, end),
  bridge: (start, end) => judgeServerPartition(start, end),
  'majorities-ring': (start, end) => judgeServerPartition(start, end),
  latency: judgeBytes('delayed'),
  failover: (start, _end, h, byProcess) => {
    const p = paramsOf(start);
    if (p.keyOnPromoted !== false)
      return hitOrMiss(
        start,
        p.keyOnPromoted === true
          ? 'the promoted replica already had the lock key: no one else could win the lock'
          : 'no record of whether the promoted replica had the lock key',
        '',
      );
    const shot = judge(start, h, byProcess);
    return shot.hit ? { ...shot, evidence: shot.evidence + secondHolder(start, h, byProcess) } : shot;
  },
  'clock-strobe': (start) => {
    const p = paramsOf(start);
    const moved = Array.isArray(p.moved) ? p.moved.map(String) : null;
    if (moved === null) return hitOrMiss(start, 'no record of which server clocks it could move', '');
    return hitOrMiss(
      start,
      moved.length ? null : "the shim can move none of the lock's server clocks",
      `strobed the clocks of ${moved.join(', ')}`,
    );
  },
};

/**
 * The judge of a catalogue fault without one of its own: one aimed at the lock hits when the history confirms its
 * aim; any other when its `end` record says `hit: true` (its `note` the evidence).
 */
function defaultJudge(f: string): Judge | undefined {
  const facts = faultFacts(f);
  if (!facts) return undefined;
  if (facts.aim) return (start, _end, h, byProcess) => judge(start, h, byProcess);
  return (start, end) => {
    if (!end) return hitOrMiss(start, 'no end record: the run ended before it was healed', '');
    const note = noteOf(end);
    return hitOrMiss(start, paramsOf(end).hit === true ? null : note || 'its end record says it did not act', note);
  };
}

const judgeOf = (f: string): Judge | undefined => (Object.hasOwn(JUDGES, f) ? JUDGES[f as FaultName] : defaultJudge(f));

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
    const count = (out[op.f] ??= { fired: 0, hit: 0, shots: [] });
    count.fired++;
    const judgeIt = judgeOf(op.f);
    const shot: FaultShot =
      op.type === 'fail'
        ? { index: op.index, hit: false, evidence: noteOf(op) || 'its start failed (no reason recorded)' }
        : judgeIt
          ? judgeIt(op, endOf(history, op), h, byProcess)
          : { index: op.index, hit: false, evidence: `this fencepost has no judge for a fault named ${op.f}` };
    count.shots.push(shot);
    if (shot.hit) count.hit++;
  }
  return out;
}

/** The `end` record that closes the injection `start` (the next one of the same fault: a fault never overlaps itself). */
function endOf(history: readonly Op[], start: Op): Op | undefined {
  for (let i = history.indexOf(start) + 1; i < history.length; i++) {
    const op = history[i];
    if (op.process !== 'nemesis' || op.f !== start.f) continue;
    const phase = (op.value as Partial<NemesisValue> | null)?.phase;
    if (phase === 'end') return op;
    if (phase === 'start') return undefined;
  }
  return undefined;
}

/**
 * Why the verdict can't be `valid`: each fault of the run (`runFaults`, the run's fault list) that never fired,
 * or fired and never acted by its own evidence (its judge). A lock that survived a fault that did nothing survived
 * nothing. Pure; one reason string per fault.
 */
export function faultHitReasons(
  hits: Readonly<Record<string, FaultHitCount>>,
  runFaults: readonly string[],
  skipped: Readonly<Record<string, string>> = {},
): string[] {
  const reasons: string[] = [];
  for (const f of new Set(runFaults)) {
    const c = hits[f];
    if ((!c || c.fired === 0) && Object.hasOwn(skipped, f)) {
      reasons.push(`${f} never fired: the run left it out (${skipped[f]}); drop it from --nemesis`);
    } else if (!c || c.fired === 0) {
      reasons.push(
        `${f} never fired: the history has no injection of it (the run ended before its turn, or the fault found no opportunity, e.g. no client entered its critical section where it could reach it: see the run's log); run longer or lower --nemesis-interval`,
      );
    } else if (!c.hit) {
      const first = c.shots.find((s) => !s.hit);
      reasons.push(
        `${f} fired ${c.fired} time${c.fired === 1 ? '' : 's'} but never ${faultFacts(f)?.hit ?? 'acted'}${first ? ` (first miss, #${first.index}: ${first.evidence})` : ''}`,
      );
    }
  }
  return reasons;
}
