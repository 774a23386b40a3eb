import type { Op } from '../../history/op.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import type { AimedShot } from '../judging/aimed-shot.ts';
import type { Judge, ShotRecords } from '../judging/fault-shot.ts';
import { at, done, holderWrite, holderWrote, missing, secs, type StepFinding } from '../judging/story-steps.ts';
import { granted, struck, tell, type Second } from '../judging/story.ts';
import { SLOPE_TOLERANCE } from '../clock-rate/judge.ts';

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
 * "The holder's renewal arrived after the key expired": a renewal its watchdog sent after the strike went out a TTL
 * or more after its last success (the acquire that opened the section, or the last renewal that succeeded) — the
 * server had let the key go by then, whatever the holder's slowed clock said. The first renewal after the strike may
 * have been nearly due and still be in time; a later one, timed wholly on the slowed clock, is the one that is late.
 * Times are the history's, where the client's own stamps were mapped back to real time. Pure.
 */
export function renewalLate(
  byProcess: ShotRecords['byProcess'],
  a: Pick<AimedShot, 'aim' | 'own' | 'read' | 'strikeNs' | 'who'>,
  ttlMs: number | undefined,
): StepFinding {
  if (ttlMs === undefined) return missing('the shot recorded no TTL to be late by');
  const wd = byProcess.get(watchdogProcess(a.aim.process)) ?? [];
  const renewals = wd.filter((op) => op.f === 'renew' && op.type === 'invoke' && op.time >= a.strikeNs);
  if (renewals.length === 0)
    return missing(
      `${a.who} sent no renewal after the strike that the history shows (no --watchdog; a library's own refresh is not recorded)`,
    );
  const acquired = a.own.slice(0, a.own.indexOf(a.read)).reverse().find(isOk('acquire'));
  let first = '';
  for (const renewal of renewals) {
    const renewed = wd
      .filter((op) => op.time < renewal.time)
      .reverse()
      .find(isOk('renew'));
    const last = [acquired, renewed].filter((op): op is Op => op !== undefined).sort((x, y) => y.time - x.time)[0];
    if (!last)
      return missing(`the history has no acquire or renewal of ${a.who}'s that succeeded before #${renewal.index}`);
    const gapMs = (renewal.time - last.time) / 1e6;
    const said = `${a.who}'s renewal #${renewal.index} went out at ${at(renewal.time)}, ${secs(gapMs)} after its last success #${last.index}`;
    if (gapMs >= ttlMs) return done(`${said} ≥ the TTL (${secs(ttlMs)}): the key had expired`);
    first ||= said;
    // A renewal that did not succeed ends the holder's renewing: none after it can be late.
    if (wd.find((op) => op.time > renewal.time && op.f === 'renew' && op.type !== 'invoke')?.type !== 'ok') break;
  }
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
    'renewal-late': () => renewalLate(shot.byProcess, a, shot.ev.start.ttlMs),
    granted: () => granted(shot, a, (s) => (second = s)),
    'holder-wrote': () => holderWrote(holderWrite(shot.history, a.own, a.read), a.who, second.read.time),
    'both-wrote': () => holderWrote(holderWrite(shot.history, second.own, second.read), second.who, second.read.time),
  });
};
