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
import type { RenewedBy } from './renewed-by.ts';

/**
 * Whether the rate reached the holder's process, from the end record: it served clock reads through the shim while
 * the rate held, and its own monotonic and wall readings moved at the rate (±5 %) on the harness's clock. Null when
 * it did; else why not — a shot whose rate never reached the process proves nothing, whatever the history shows.
 */
export function rateNotReached({ ev }: Pick<ShotRecords<'clock-rate-client'>, 'ev'>): string | null {
  const rate = ev.start.rate;
  const e = ev.end;
  if (!e) return 'the history ended before the rate was measured';
  if (rate === undefined) return 'the start record has no rate';
  if (!((e.reads ?? 0) > 0))
    return 'the client read no clock through the shim while the rate held: the rate never reached it';
  for (const [clock, slope] of [
    ['monotonic', e.monoSlope],
    ['wall', e.wallSlope],
  ] as const) {
    if (slope === undefined)
      return `the client did not answer two clock requests: no ${clock} slope to prove the rate by`;
    if (Math.abs(slope / rate - 1) > SLOPE_TOLERANCE)
      return `the client's ${clock} clock ran at ${slope} ms per ms over ${e.probeMs} ms, not ${rate} ± 5 %`;
  }
  return null;
}

/**
 * "The holder's lease ran out while its slowed clock kept it inside its section", judged by what keeps the lease
 * alive (renewed-by.ts). With --watchdog: a renewal sent after the strike went out a TTL or more after its last
 * success — the server had let the key go by then, whatever the holder's slowed clock said; the first renewal after
 * the strike may have been nearly due and still be in time, a later one, timed wholly on the slowed clock, is the one
 * that is late. Renewing nothing: its write went out a TTL or more after its grant. Renewing unseen (a library's own
 * refresh): another client was granted the account inside the holder's section. Held when the lease lived through a
 * section the rate stretched — the lock put to the test, and holding. Times are the history's, where the client's
 * own stamps were mapped back to real time. Pure.
 */
export function renewalLate(
  shot: Pick<ShotRecords, 'byProcess' | 'history'>,
  a: Pick<AimedShot, 'aim' | 'own' | 'read' | 'strikeNs' | 'who'>,
  ttlMs: number | undefined,
  by: RenewedBy = 'watchdog',
): StepFinding {
  if (ttlMs === undefined) return missing('the shot recorded no TTL to be late by');
  const grant = a.own.slice(0, a.own.indexOf(a.read)).reverse().find(isOk('acquire'));
  if (!grant)
    return missing(`the history has no acquire of ${a.who}'s that succeeded before its read #${a.read.index}`);
  const write = holderWrite(shot.history, a.own, a.read)?.invoke;
  const section = write
    ? `${a.who}'s write #${write.index} went out at ${at(write.time)}, ${secs((write.time - grant.time) / 1e6)} after its grant #${grant.index}`
    : undefined;
  const outlasted = write !== undefined && (write.time - grant.time) / 1e6 >= ttlMs;
  if (by === 'watchdog') return lateRenewal(shot.byProcess, a, grant, ttlMs, outlasted ? section : undefined);
  if (by === 'nothing') return sectionPastLease(a, write, section, outlasted, ttlMs);
  const untilNs = write?.time ?? shot.history.endTime + 1;
  const { process: holder, account } = a.aim;
  const other = shot.history.ops.find((op) => op.time < untilNs && isOtherGrant(op, holder, account, a.strikeNs));
  if (other)
    return done(
      `p${String(other.process)} was granted account ${account} (#${other.index}) at ${at(other.time)}, ${secs((other.time - grant.time) / 1e6)} after ${a.who}'s grant #${grant.index}, while ${a.who} was inside its section: its own refresh, outside the history, had not kept the key`,
    );
  if (outlasted)
    return held(
      `${section} ≥ the TTL (${secs(ttlMs)}), and no other client was granted meanwhile: its own refresh kept the key`,
    );
  return missing(
    `${section ?? `${a.who} wrote nothing after its read`}, inside the TTL (${secs(ttlMs)}): nothing needed renewing`,
  );
}

/**
 * A holder that renews nothing: its lease is the TTL from its grant. Done when its write went out a TTL or more after
 * it; held when the rate stretched its section to half the TTL or more after its read and it still wrote inside the
 * lease (the slowed clock had room to carry it past, and did not); a shorter section tested nothing.
 */
function sectionPastLease(
  a: Pick<AimedShot, 'read' | 'who'>,
  write: Op | undefined,
  section: string | undefined,
  outlasted: boolean,
  ttlMs: number,
): StepFinding {
  if (!write || !section)
    return missing(`${a.who} sent no write after its read #${a.read.index}: nothing to be late with`);
  if (outlasted)
    return done(`renewing nothing (no --watchdog), ${section} ≥ the TTL (${secs(ttlMs)}): the key had expired`);
  if ((write.time - a.read.time) / 1e6 >= ttlMs / 2)
    return held(
      `${section}, inside the TTL (${secs(ttlMs)}): the slowed clock did not carry its section past its lease`,
    );
  return missing(`${section}: its section after the read was under half the TTL, too short for the rate to test`);
}

/** The --watchdog case of renewalLate: a renewal after the strike a TTL or more after the last success. */
function lateRenewal(
  byProcess: ShotRecords['byProcess'],
  a: Pick<AimedShot, 'aim' | 'strikeNs' | 'who'>,
  acquired: Op,
  ttlMs: number,
  outlastedBy: string | undefined,
): StepFinding {
  const wd = byProcess.get(watchdogProcess(a.aim.process)) ?? [];
  const renewals = wd.filter((op) => op.f === 'renew' && op.type === 'invoke' && op.time >= a.strikeNs);
  if (renewals.length === 0) return missing(`${a.who} sent no renewal after the strike that the history shows`);
  let first = '';
  for (const renewal of renewals) {
    const renewed = wd
      .filter((op) => op.time < renewal.time)
      .reverse()
      .find(isOk('renew'));
    const last = [acquired, renewed].filter((op): op is Op => op !== undefined).sort((x, y) => y.time - x.time)[0];
    const gapMs = (renewal.time - last.time) / 1e6;
    const said = `${a.who}'s renewal #${renewal.index} went out at ${at(renewal.time)}, ${secs(gapMs)} after its last success #${last.index}`;
    if (gapMs >= ttlMs) return done(`${said} ≥ the TTL (${secs(ttlMs)}): the key had expired`);
    first ||= said;
    // A renewal that did not succeed ends the holder's renewing: none after it can be late.
    if (wd.find((op) => op.time > renewal.time && op.f === 'renew' && op.type !== 'invoke')?.type !== 'ok') break;
  }
  if (outlastedBy)
    return held(`${first}, inside the TTL (${secs(ttlMs)}), and ${outlastedBy} ≥ the TTL: its renewals kept the key`);
  return missing(`${first}, inside the TTL (${secs(ttlMs)}): its renewals arrived in time`);
}

const isOk = (f: string) => (op: Op) => op.f === f && op.type === 'ok';

/**
 * clock-rate-client's judge: struck (the aim confirmed, and the rate proven in the client's own readings) → the
 * holder's renewal late → another client granted → the holder wrote → the other wrote too.
 */
export const judge: Judge<'clock-rate-client'> = (shot) => {
  let a!: AimedShot;
  let second!: Second;
  return tell(shot.start, 'clock-rate-client', {
    struck: struck(
      shot,
      shot.ev.start.aim,
      (x) => (a = x),
      () => rateNotReached(shot),
    ),
    'renewal-late': () => renewalLate(shot, a, shot.ev.start.ttlMs, shot.ev.start.renewedBy),
    granted: () => granted(shot, a, (s) => (second = s)),
    'holder-wrote': () => holderWrote(holderWrite(shot.history, a.own, a.read), a.who, second.read.time),
    'both-wrote': () => holderWrote(holderWrite(shot.history, second.own, second.read), second.who, second.read.time),
  });
};
