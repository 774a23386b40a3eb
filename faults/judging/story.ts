import type { StoryStepId } from '../fault-facts.ts';
import { faultFacts } from '../catalogue.ts';
import type { FaultAim } from '../fault-aim.ts';
import type { FaultName } from '../fault-names.ts';
import { confirmAim, type AimedShot } from './aimed-shot.ts';
import type { FaultShot, ShotRecords, StoryStep } from './fault-shot.ts';
import {
  at,
  done,
  holderWrite,
  isOtherGrant,
  missing,
  otherSection,
  type OtherSection,
  type StepFinding,
} from './story-steps.ts';

/**
 * The steps the judges of the faults aimed at the lock share (faults/<name>/judge.ts, server-story.ts): a shot is a
 * hit only when the story its facts tell (faults/<name>/facts.ts, `story`) completed, step by step, in order — every step done, or the lock seen
 * stopping it at a step where it may (`held`). How the shot *started* (inside a critical section, longer than the
 * TTL) is only the first step: a pause the run's end cut short, or one nobody used to take the lock, tested nothing.
 */

export type Checks = Record<StoryStepId, () => StepFinding>;

/**
 * Judges a shot's story by running its steps' checks in the catalogue's order, each after the one before it was done
 * (a check may read what earlier ones found). Stops at the first step missing or held; the rest are not reached.
 */
export function tell(start: ShotRecords['start'], f: FaultName, checks: Partial<Checks>): FaultShot {
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
export function struck(
  shot: Pick<ShotRecords, 'start' | 'history' | 'byProcess'>,
  aim: FaultAim | undefined,
  keep: (a: AimedShot) => void,
  also?: () => string | null,
  more = '',
): () => StepFinding {
  return () => {
    const why = also?.();
    if (why) return missing(why);
    const a = confirmAim(shot, aim);
    if ('miss' in a) return missing(a.miss);
    keep(a);
    return done(a.evidence + more);
  };
}

/** The other client of a double grant: its process, and the read that opened its section. */
export interface Second {
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
export function granted(
  shot: Pick<ShotRecords, 'history' | 'byProcess'>,
  a: AimedShot,
  keep: (second: Second) => void,
): StepFinding {
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
 * "Another client acquired the same account and read it in (`fromNs`, `untilNs`), and committed its write": its read
 * missed the holder's pending write, so one of the two writes is lost whichever lands second.
 */
export function otherWrote(
  shot: Pick<ShotRecords, 'history' | 'byProcess'>,
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
