import type { Op } from '../../history/op.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import type { AimedShot } from '../judging/aimed-shot.ts';
import type { Judge, ShotRecords } from '../judging/fault-shot.ts';
import {
  at,
  done,
  held,
  holderWrite,
  holderWrote,
  isOtherGrant,
  missing,
  secs,
  type StepFinding,
} from '../judging/story-steps.ts';
import { granted, struck, tell, type Second } from '../judging/story.ts';
import { SLOPE_TOLERANCE } from '../clock-rate/judge.ts';

/**
 * Whether the rate reached every waiter, from the end record: each served clock reads through the shim while the
 * rate held, and its own monotonic and wall readings moved at the rate (±5 %) on the harness's clock. Null when they
 * did; else why not, for the first that did not — a waiter the rate never reached proves nothing of the waiters.
 */
export function waitersNotReached({ ev }: Pick<ShotRecords<'clock-rate-waiters'>, 'ev'>): string | null {
  const { rate, waiters = [] } = ev.start;
  const e = ev.end;
  if (!e) return 'the history ended before the rate was measured';
  if (rate === undefined) return 'the start record has no rate';
  if (!waiters.length) return 'it ran no waiter at the rate';
  for (const w of waiters) {
    if (!((e.reads?.[w] ?? 0) > 0))
      return `waiter ${w} read no clock through the shim while the rate held: the rate never reached it`;
    for (const [clock, slope] of [
      ['monotonic', e.monoSlopes?.[w]],
      ['wall', e.wallSlopes?.[w]],
    ] as const) {
      if (slope === undefined)
        return `waiter ${w} did not answer two clock requests: no ${clock} slope to prove the rate by`;
      if (Math.abs(slope / rate - 1) > SLOPE_TOLERANCE)
        return `waiter ${w}'s ${clock} clock ran at ${slope} ms per ms over ${e.probeMs?.[w]} ms, not ${rate} ± 5 %`;
    }
  }
  return null;
}

/**
 * "A waiter took the holder's lease before it ran out by real time." The lease is counted, on the history's (real)
 * clock, from the invocation of the holder's last grant or renewal the history shows: it was written no earlier, so
 * it ran at least a TTL from there. Done when another client's grant of the account completed after the strike, before
 * the holder's write, and inside that TTL: the grant came while the lease still ran, so a clock other than the
 * server's — the waiter's own, fast — ended it. Held when the holder wrote and nobody was granted meanwhile. Missing
 * when the grant came a TTL or more after: the lease may have run out by real time, and a renewal a library sent
 * itself would not show. Pure.
 */
export function leaseEarly(
  shot: Pick<ShotRecords<'clock-rate-waiters'>, 'ev' | 'history' | 'byProcess'>,
  a: Pick<AimedShot, 'aim' | 'own' | 'read' | 'strikeNs' | 'who'>,
): StepFinding {
  const ttlMs = shot.ev.start.ttlMs;
  if (ttlMs === undefined) return missing('the shot recorded no TTL to count the lease by');
  const write = holderWrite(shot.history, a.own, a.read)?.invoke;
  const untilNs = write?.time ?? shot.history.endTime + 1;
  const { process: holder, account } = a.aim;
  const other = shot.history.ops.find((op) => op.time < untilNs && isOtherGrant(op, holder, account, a.strikeNs));
  if (!other) {
    if (write)
      return held(
        `no waiter was granted account ${account} before ${a.who}'s write #${write.index} at ${at(write.time)}, ${secs((write.time - a.strikeNs) / 1e6)} after the strike`,
      );
    return missing(`${a.who} neither wrote nor lost its lock before the history ended`);
  }
  const last = lastSuccess(shot, a, other.time);
  if (!last) return missing(`the history has no grant of ${a.who}'s before p${String(other.process)}'s`);
  const sinceMs = (other.time - last.invoke.time) / 1e6;
  const granted = `p${String(other.process)} was granted account ${account} (#${other.index}) at ${at(other.time)}, ${secs(sinceMs)} after ${a.who}'s last ${last.what} #${last.invoke.index} was sent`;
  if (sinceMs < ttlMs)
    return done(
      `${granted}, inside its TTL of ${secs(ttlMs)}, while ${a.who} was inside its section: its lease still ran by real time`,
    );
  return missing(`${granted}, a TTL (${secs(ttlMs)}) or more after: its lease may have run out by real time`);
}

/** The holder's last successful acquire (its own) or renewal (its watchdog's) completed before `beforeNs`, by its invocation. */
function lastSuccess(
  shot: Pick<ShotRecords, 'history' | 'byProcess'>,
  a: Pick<AimedShot, 'aim' | 'own' | 'read'>,
  beforeNs: number,
): { invoke: Op; what: string } | undefined {
  const wd = shot.byProcess.get(watchdogProcess(a.aim.process)) ?? [];
  const oks = [...a.own.slice(0, a.own.indexOf(a.read)), ...wd].filter(
    (op) => op.type === 'ok' && op.time < beforeNs && (op.f === 'acquire' || op.f === 'renew'),
  );
  const last = oks.sort((x, y) => y.time - x.time)[0];
  const invoke = last && shot.history.pairOf(last)?.invoke;
  return invoke ? { invoke, what: last.f === 'renew' ? 'renewal' : 'acquire' } : undefined;
}

/**
 * clock-rate-waiters' judge: struck (the aim confirmed, and the rate proven in every waiter's own readings) → a waiter
 * took the lease early → another client granted → the holder wrote → the other wrote too.
 */
export const judge: Judge<'clock-rate-waiters'> = (shot) => {
  let a!: AimedShot;
  let second!: Second;
  return tell(shot.start, 'clock-rate-waiters', {
    struck: struck(
      shot,
      shot.ev.start.aim,
      (x) => (a = x),
      () => waitersNotReached(shot),
    ),
    'lease-early': () => leaseEarly(shot, a),
    granted: () => granted(shot, a, (s) => (second = s)),
    'holder-wrote': () => holderWrote(holderWrite(shot.history, a.own, a.read), a.who, second.read.time),
    'both-wrote': () => holderWrote(holderWrite(shot.history, second.own, second.read), second.who, second.read.time),
  });
};
