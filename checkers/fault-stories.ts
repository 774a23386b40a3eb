import { CLIENT_EXITED } from '../history/client-exit.ts';
import { faultFacts, shimCannotMove, type StoryStepId } from '../history/fault-catalogue.ts';
import type { FaultName } from '../history/fault-names.ts';
import { confirmAim, type AimedShot } from './aimed-shot.ts';
import {
  lockProcessRanOn,
  lockStoppedWith,
  noteOf,
  num,
  paramsOf,
  type FaultShot,
  type Judge,
  type ShotRecords,
  type StoryStep,
} from './fault-shot.ts';
import {
  at,
  done,
  held,
  holderWrite,
  holderWrote,
  isOtherGrant,
  leaseRanOut,
  missing,
  otherGrant,
  otherSection,
  type OtherSection,
  secs,
  type StepFinding,
} from './story-steps.ts';

/**
 * The judges of the faults aimed at the lock: a shot is a hit only when the story its catalogue row tells
 * (history/fault-catalogue.ts, `story`) completed, step by step, in order — every step done, or the lock seen
 * stopping it at a step where it may (`held`). How the shot *started* (inside a critical section, longer than the
 * TTL) is only the first step: a pause the run's end cut short, or one nobody used to take the lock, tested nothing.
 */

type Checks = Record<StoryStepId, () => StepFinding>;

/**
 * Judges a shot's story by running its steps' checks in the catalogue's order, each after the one before it was done
 * (a check may read what earlier ones found). Stops at the first step missing or held; the rest are not reached.
 */
function tell(start: ShotRecords['start'], f: FaultName, checks: Partial<Checks>): FaultShot {
  const steps: StoryStep[] = [];
  let stopped = false;
  for (const s of faultFacts(f)?.story ?? []) {
    if (stopped) {
      steps.push({ id: s.id, status: 'not-reached', evidence: '' });
      continue;
    }
    const check = checks[s.id];
    let r = check ? check() : missing('this fencepost has no check for it');
    // Only a step the catalogue says the lock may stop counts as held.
    if (r.status === 'held' && !s.held) r = missing(r.evidence);
    steps.push({ id: s.id, ...r });
    stopped = r.status !== 'done';
  }
  const gap = steps.find((s) => s.status === 'missing');
  const told = steps.filter((s) => s.status === 'done' || s.status === 'held').map((s) => s.evidence);
  return {
    index: start.index,
    hit: gap === undefined,
    evidence: [...told, ...(gap ? [`missing ${gap.id}: ${gap.evidence}`] : [])].join(' → '),
    story: steps,
  };
}

/** The first step of an aimed story: the aim confirmed (and whatever else the fault's own record must show). */
function struck(
  shot: ShotRecords,
  keep: (a: AimedShot) => void,
  also?: () => string | null,
  more = '',
): () => StepFinding {
  return () => {
    const why = also?.();
    if (why) return missing(why);
    const a = confirmAim(shot);
    if ('miss' in a) return missing(a.miss);
    keep(a);
    return done(a.evidence + more);
  };
}

/** The other client of a double grant: its process, and the read that opened its section. */
interface Second {
  who: string;
  own: readonly ShotRecords['start'][];
  read: ShotRecords['start'];
}

/**
 * "Another client was granted the lock and read the balance while the holder still held it": granted after the
 * strike, its read before the holder's write completed (before it let go, when it wrote nothing). A grant whose read
 * came after the holder's write is no story: it read what the holder wrote. A challenger kept waiting is no story
 * either — the history cannot tell a lock that held from a server that was down or slow.
 */
function granted(shot: ShotRecords, a: AimedShot, keep: (second: Second) => void): StepFinding {
  const h = shot.history;
  const write = holderWrite(h, a.own, a.read);
  const next = a.own[a.own.indexOf(a.read) + 1];
  const untilNs = write?.completion?.time ?? (write ? h.endTime + 1 : (next?.time ?? h.endTime + 1));
  const { process: holder, account } = a.aim;
  const grants = h.ops.filter((op) => op.time < untilNs && isOtherGrant(op, holder, account, a.strikeNs));
  for (const g of grants) {
    const own = shot.byProcess.get(g.process as number) ?? [];
    const read = readAfter(own, g);
    if (!read || read.time >= untilNs) continue;
    keep({ who: `p${String(g.process)}`, own, read });
    return done(
      `p${String(g.process)} was granted account ${account} (#${g.index}) at ${at(g.time)} and read it (#${read.index})`,
    );
  }
  if (grants.length) {
    const g = grants[0];
    return missing(
      `p${String(g.process)} was granted account ${account} (#${g.index}) but read it only after ${a.who}'s write completed: it read that write, nothing could be lost`,
    );
  }
  return missing(`no other client was granted account ${account} while ${a.who} held it`);
}

/**
 * restart-empty's second step: the struck nodes answered again, empty, before the holder's write completed — or a
 * remedy kept them from it, as the fault's own records show: down for at least the TTL (--restart-delay), or back with
 * their AOF (wiped: false).
 */
function restarted(shot: ShotRecords, a: AimedShot): StepFinding {
  const { start, end, history: h } = shot;
  const p = paramsOf(start);
  const nodes = Array.isArray(p.killed) ? p.killed.map(String).join(', ') : 'the struck nodes';
  if (!end) return missing(`the history ended with ${nodes} still down`);
  // On a target the servers said it after the restart (the end record): the key back on them, or gone.
  const wiped = p.wiped ?? paramsOf(end).wiped;
  if (wiped === false)
    return held(
      typeof p.evidenceFrom === 'string'
        ? `${nodes} answered again with the key (the servers' own answer after the restart through ${p.evidenceFrom})`
        : `${nodes} came back with their AOF: the key returned`,
    );
  const delayMs = num(p.restartDelayMs) ?? 0;
  const ttlMs = num(p.ttlMs);
  if (ttlMs !== undefined && delayMs >= ttlMs)
    return held(
      `${nodes} stayed down ${secs(delayMs)} ≥ the TTL (${secs(ttlMs)}): every lease they granted ran out first`,
    );
  const write = holderWrite(h, a.own, a.read)?.completion;
  if (write && write.time <= end.time)
    return missing(
      `${nodes} answered again only at ${at(end.time)}, after ${a.who}'s write completed (#${write.index})`,
    );
  if (typeof p.evidenceFrom === 'string')
    return done(
      `${nodes} answered again without the key at ${at(end.time)} (evidence from ${p.evidenceFrom}: the servers' own answers after its kill and start)`,
    );
  return done(`${nodes} answered again, empty, at ${at(end.time)}`);
}

const pauseHolder: Judge = (shot) => {
  const { start, end, history: h } = shot;
  const p = paramsOf(start);
  let a!: AimedShot;
  let resumeNs = 0;
  let other!: OtherSection;
  return tell(start, 'pause-holder', {
    stopped: struck(
      shot,
      (x) => (a = x),
      () => lockProcessRanOn(p),
      lockStoppedWith(p) && `, ${lockStoppedWith(p)}`,
    ),
    'lease-expired': () => {
      if (!end) return missing(`the history ended with ${a.who} still stopped`);
      resumeNs = end.time;
      const ttlMs = num(p.ttlMs);
      const stoppedMs = Math.round((end.time - a.strikeNs) / 1e6);
      if (ttlMs === undefined) return missing('the shot recorded no TTL to outlive');
      if (!leaseRanOut(stoppedMs, ttlMs))
        return missing(
          `${a.who} was stopped ${stoppedMs} ms, less than the TTL (${ttlMs} ms): its lease may not have run out`,
        );
      return done(`stopped ${secs(stoppedMs)} ≥ the TTL (${secs(ttlMs)})`);
    },
    'other-wrote': () => otherWrote(shot, a, a.strikeNs, resumeNs, (o) => (other = o), `before ${a.who} resumed`),
    resumed: () =>
      paramsOf(end).cutShort === true
        ? missing(`the run's end cut the pause short (at ${at(resumeNs)}): the clients were stopping`)
        : done(`${a.who} resumed at ${at(resumeNs)}`),
    'holder-wrote': () => holderWrote(holderWrite(h, a.own, a.read), a.who, other.read!.time),
  });
};

/**
 * "Another client acquired the same account and read it in (`fromNs`, `untilNs`), and committed its write": its read
 * missed the holder's pending write, so one of the two writes is lost whichever lands second.
 */
function otherWrote(
  shot: ShotRecords,
  a: { aim: { process: number; account: number }; who: string },
  fromNs: number,
  untilNs: number,
  keep: (o: OtherSection) => void,
  by: string,
): StepFinding {
  const { process: holder, account } = a.aim;
  const o = otherSection(shot.history.ops, holder, account, fromNs, untilNs);
  if (o?.write) {
    keep(o);
    return done(
      `p${String(o.grant.process)} acquired #${o.grant.index}, read #${o.read!.index}, wrote #${o.write.index}`,
    );
  }
  if (o?.read)
    return missing(
      `p${String(o.grant.process)} acquired account ${account} (#${o.grant.index}) and read it ${by}, but never committed its write`,
    );
  if (o)
    return missing(
      `p${String(o.grant.process)} acquired account ${account} (#${o.grant.index}) ${by}, but read it only after`,
    );
  return missing(`no other client acquired account ${account} ${by}`);
}

const killHolder: Judge = (shot) => {
  let a!: AimedShot;
  return tell(shot.start, 'kill-holder', {
    killed: struck(shot, (x) => (a = x)),
    died: () => {
      const death = a.own.find((op) => op.type === 'info' && op.error === CLIENT_EXITED && op.time >= a.strikeNs);
      return death
        ? done(`${a.who} died (#${death.index})`)
        : missing(`${a.who} has no client exit after the kill: it did not die there`);
    },
    freed: () => {
      const g = otherGrant(shot.history, a.aim.process, a.aim.account, a.strikeNs, Infinity);
      return g
        ? done(
            `p${String(g.process)} acquired account ${a.aim.account} (#${g.index}) ${secs((g.time - a.strikeNs) / 1e6)} after the kill`,
          )
        : missing(`no other client acquired account ${a.aim.account} after the kill before the history ended`);
    },
  });
};

/** A client's `read` ok of its section: the first read after its acquire `grant`, before it invoked anything else. */
function readAfter(
  own: readonly ShotRecords['start'][],
  grant: ShotRecords['start'],
): ShotRecords['start'] | undefined {
  const after = own.slice(own.indexOf(grant) + 1);
  const invoke = after.find((op) => op.type === 'invoke');
  if (invoke?.f !== 'read') return undefined;
  const read = after.find((op) => op.f === 'read' && op.type !== 'invoke');
  return read?.type === 'ok' ? read : undefined;
}

/**
 * restart-empty, clock and failover: struck the servers → another client granted the lock and read → the holder
 * wrote → the other client wrote too.
 */
function serverStory(
  f: 'restart-empty' | 'clock' | 'failover' | 'kill-session',
  also?: (shot: ShotRecords) => string | null,
): Judge {
  return (shot) => {
    let a!: AimedShot;
    let second!: Second;
    return tell(shot.start, f, {
      struck: struck(
        shot,
        (x) => (a = x),
        () => also?.(shot) ?? null,
      ),
      restarted: () => restarted(shot, a),
      granted: () => granted(shot, a, (s) => (second = s)),
      'holder-wrote': () => holderWrote(holderWrite(shot.history, a.own, a.read), a.who, second.read.time),
      'both-wrote': () => holderWrote(holderWrite(shot.history, second.own, second.read), second.who, second.read.time),
    });
  };
}

/**
 * restart-empty on a target's servers: the adapter's kill counts only when the servers themselves stopped answering
 * (their own probe after the kill), the evidence a local run has from the processes it killed.
 */
function remoteKill({ start }: ShotRecords): string | null {
  const p = paramsOf(start);
  if (typeof p.evidenceFrom !== 'string') return null;
  return p.unreachable === true
    ? null
    : `${p.evidenceFrom} killed ${Array.isArray(p.killed) ? p.killed.join(', ') : 'the nodes'}, but they still answered afterwards`;
}

/** A clock jump on etcd members (a run from before clock was refused for etcd) moved nothing. */
function clockOnEtcd({ start }: ShotRecords): string | null {
  const aim = paramsOf(start).aim as { struck?: unknown } | undefined;
  const nodes = Array.isArray(aim?.struck) ? aim.struck.map(String) : [];
  return nodes.length && nodes.every((n) => /^etcd\[\d+\]$/.test(n))
    ? `it struck ${nodes.join(', ')}: ${shimCannotMove('etcd')}`
    : null;
}

function keyOnPromoted({ start }: ShotRecords): string | null {
  const k = paramsOf(start).keyOnPromoted;
  if (k === false) return null;
  return k === true
    ? 'the promoted replica already had the lock key: no one else could win the lock'
    : 'no record of whether the promoted replica had the lock key';
}

/** kill-session struck only when it ended a session that held the holder's advisory lock (nemesis/faults/kill-session.ts). */
function sessionEnded({ start }: ShotRecords): string | null {
  const backends = paramsOf(start).backends;
  return Array.isArray(backends) && backends.length > 0
    ? null
    : 'no session of the holder held an advisory lock: nothing was ended';
}

/**
 * delay-write's story, from its `end` record (what the hold saw of the held write: nemesis/faults/delay-write.ts)
 * and the history: the write went into the hold, stayed there a TTL, another client wrote meanwhile, the bytes were
 * delivered with the clients still running, and the late write then committed (or was refused).
 */
const delayWrite: Judge = (shot) => {
  const { start, end, history: h } = shot;
  const e = paramsOf(end);
  const holder = num(e.process) ?? num(paramsOf(start).process) ?? -1;
  const account = num(e.account) ?? num(paramsOf(start).account) ?? -1;
  const who = `p${holder}`;
  let write: { invoke: ShotRecords['start']; completion: ShotRecords['start'] | null } | undefined;
  let other!: OtherSection;
  return tell(start, 'delay-write', {
    'write-held': () => {
      if (!end) return missing('the history ended before the hold was released');
      if (e.hit !== true) return missing(noteOf(end) || `${who} sent no write into the hold`);
      const invoke = (shot.byProcess.get(holder) ?? []).find(
        (op) => op.f === 'write' && op.type === 'invoke' && op.time === e.writeTime,
      );
      write = invoke ? { invoke, completion: h.completionOf(invoke) ?? null } : undefined;
      return done(`${who}'s write${invoke ? ` #${invoke.index}` : ''} went into the hold`);
    },
    'lease-expired': () => {
      const heldMs = num(e.writeHeldMs);
      const ttlMs = num(paramsOf(start).ttlMs);
      if (heldMs === undefined || ttlMs === undefined) return missing('the hold recorded no time held or no TTL');
      if (!leaseRanOut(heldMs, ttlMs))
        return missing(
          `the write was held ${heldMs} ms, less than the TTL (${ttlMs} ms): the lease may have outlived it`,
        );
      return done(`held ${secs(heldMs)} ≥ the TTL (${secs(ttlMs)})`);
    },
    'other-wrote': () =>
      otherWrote(
        shot,
        { aim: { process: holder, account }, who },
        num(paramsOf(start).heldAtTime) ?? start.time,
        end!.time,
        (o) => (other = o),
        'during the hold',
      ),
    delivered: () =>
      e.cutShort === true
        ? missing(`the run's end cut the hold short: ${noteOf(end)}`)
        : done(`delivered at ${at(end!.time)}`),
    'holder-wrote': () => holderWrote(write, who, other.read!.time),
  });
};

/** The judges of the faults whose catalogue row tells a story. */
export const STORY_JUDGES: Readonly<Partial<Record<FaultName, Judge>>> = {
  'pause-holder': pauseHolder,
  'kill-holder': killHolder,
  'restart-empty': serverStory('restart-empty', remoteKill),
  clock: serverStory('clock', clockOnEtcd),
  failover: serverStory('failover', keyOnPromoted),
  'kill-session': serverStory('kill-session', sessionEnded),
  'delay-write': delayWrite,
};
