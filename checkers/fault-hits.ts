import type { ChurnRound, NemesisValue } from '../history/bank.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import { faultFacts, type FaultName } from '../history/fault-catalogue.ts';
import { isRecord } from '../common/is-record.ts';
import {
  hitOrMiss,
  lockProcessRanOn,
  lockStoppedWith,
  noteOf,
  num,
  paramsOf,
  targetsOf,
  type FaultShot,
  type Judge,
  type ShotRecords,
} from './fault-shot.ts';
import { STORY_JUDGES } from './fault-stories.ts';

export type { FaultShot } from './fault-shot.ts';

/**
 * Per fault, in the run's results: how often it fired, how often it acted (by the fault's own evidence: see JUDGES;
 * for a fault aimed at the lock, how often its story completed: fault-stories.ts), and each shot's evidence. `hit`
 * is a number for every fault: a fault that fired but did nothing tested nothing.
 */
export interface FaultHitCount {
  fired: number;
  hit: number;
  shots: FaultShot[];
}

/** Bytes a proxy fault held or delayed, from its end record (`heldBytes`: per proxy). */
function judgeBytes(verb: string): Judge {
  return ({ start, end }) => {
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
function judgeServerPartition({ start, end }: ShotRecords): FaultShot {
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
 * pause-node on a target's server (not fencepost's): the adapter named in `evidenceFrom` acted, and the server itself
 * stopped answering (`adapter.answered: false`, the node's own probe) — a command that exited 0 on a server still
 * answering stopped nothing.
 */
function remotePause(
  start: ShotRecords['start'],
  p: Record<string, unknown>,
  target: string,
  pids: unknown[],
): FaultShot {
  const seen = isRecord(p.adapter) ? p.adapter : {};
  const via = String(p.evidenceFrom);
  if (seen.acted !== true)
    return hitOrMiss(start, `${via} reported that it did not act on ${target || 'the server'}`, '');
  if (p.stopped !== true || seen.answered !== false)
    return hitOrMiss(
      start,
      `${via} ran ${String(seen.command ?? 'its pause')}, but ${target || 'the server'} still answered`,
      '',
    );
  const within = num(seen.stoppedAnsweringWithinMs);
  return hitOrMiss(
    start,
    null,
    `stopped ${target} through ${via} (evidence from the adapter: \`${String(seen.command)}\`${pids.length ? `, pid ${pids.join(', ')}` : ''}; the server stopped answering${within !== undefined ? ` within ${within} ms` : ''})`,
  );
}

/**
 * The faults whose evidence needs a judge of their own: what it must show for a shot to count. Any other fault of
 * the catalogue is judged by DEFAULT_JUDGE; a name the catalogue does not know (from a newer fencepost) is a miss,
 * said so.
 */
export const JUDGES: Readonly<Partial<Record<FaultName, Judge>>> = {
  ...STORY_JUDGES,
  'pause-node': ({ start }) => {
    const p = paramsOf(start);
    const pids = Array.isArray(p.pids) ? p.pids : [];
    const target = targetsOf(start).join(', ');
    if (typeof p.evidenceFrom === 'string') return remotePause(start, p, target, pids);
    if (!pids.length || p.stopped === false)
      return hitOrMiss(start, `it stopped no live process of ${target || 'any server'}`, '');
    const leader = p.leader === true ? ', the leader' : p.leader === false ? ', not the leader' : '';
    return hitOrMiss(start, null, `stopped ${target} (pid ${pids.join(', ')}${leader})`);
  },
  'leader-churn': ({ start, end }) => {
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
  'pause-client': ({ start }) => {
    const p = paramsOf(start);
    const target = targetsOf(start).join(', ');
    if (p.stopped !== true)
      return hitOrMiss(start, `${target || 'the client'} was not a live process when stopped`, '');
    const withLock = lockStoppedWith(p);
    return hitOrMiss(start, lockProcessRanOn(p), `stopped ${target}${withLock ? `, ${withLock}` : ''}`);
  },
  kill: ({ start, end }) => {
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
  'isolate-leader': judgeServerPartition,
  'majority-minority': judgeServerPartition,
  bridge: judgeServerPartition,
  'majorities-ring': judgeServerPartition,
  latency: judgeBytes('delayed'),
  'clock-strobe': ({ start }) => {
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
 * The judge of a catalogue fault without one of its own (every fault with a story has one): it hit when its `end`
 * record says `hit: true` (its `note` the evidence).
 */
function defaultJudge(f: string): Judge | undefined {
  if (!faultFacts(f)) return undefined;
  return ({ start, end }) => {
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
          ? judgeIt({ start: op, end: endOf(history, op), history: h, byProcess })
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
      const times = `${c.fired} time${c.fired === 1 ? '' : 's'}`;
      const story = faultFacts(f)?.story;
      if (story) {
        const best = furthestShot(c.shots);
        const gap = best?.story?.find((s) => s.status === 'missing');
        reasons.push(
          `${f} fired ${times} but its story never completed${best ? ` (the furthest shot, #${best.index}, ${gap ? `stopped short of ${gap.id}, "${story.find((s) => s.id === gap.id)?.says}": ${gap.evidence}` : best.evidence})` : ''}`,
        );
        continue;
      }
      const first = c.shots.find((s) => !s.hit);
      reasons.push(
        `${f} fired ${times} but never ${faultFacts(f)?.hit ?? 'acted'}${first ? ` (first miss, #${first.index}: ${first.evidence})` : ''}`,
      );
    }
  }
  return reasons;
}

/** The shot whose story got furthest (most steps done): the one a reader learns most from. The first of equals. */
export function furthestShot(shots: readonly FaultShot[]): FaultShot | undefined {
  const doneSteps = (s: FaultShot) => s.story?.filter((x) => x.status === 'done').length ?? 0;
  return shots.reduce<FaultShot | undefined>(
    (best, s) => (!best || doneSteps(s) > doneSteps(best) ? s : best),
    undefined,
  );
}
