import type { Op } from '../../history/op.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import type { AimedShot } from '../judging/aimed-shot.ts';
import type { ShotRecords } from '../judging/fault-shot.ts';
import { at, done, held, holderWrite, isOtherGrant, missing, secs, type StepFinding } from '../judging/story-steps.ts';

/**
 * clock-rate's `lease-expired` step: "the holder was still inside its section when its key, on a server clock at r,
 * would have expired". At the strike the key had TTL − (strike − its last grant or renewal) of the server's time
 * left, which the rate spends in that over r of real time. Done when the holder's section (to its write, else the
 * history's end) went on past that; held when a renewal of its watchdog succeeded after the strike and before its
 * write and no other client was granted meanwhile — the lock put to the test, kept alive by its renewals; missing
 * when the holder wrote first: the rate had nothing to expire. Pure.
 */
export function leaseAtRate(
  shot: Pick<ShotRecords<'clock-rate'>, 'ev' | 'history' | 'byProcess'>,
  a: Pick<AimedShot, 'aim' | 'own' | 'read' | 'strikeNs' | 'who'>,
): StepFinding {
  const { rate, ttlMs } = shot.ev.start;
  if (rate === undefined || ttlMs === undefined)
    return missing('the shot recorded no rate or TTL to expire the key by');
  const wd = shot.byProcess.get(watchdogProcess(a.aim.process)) ?? [];
  const before = [...a.own.slice(0, a.own.indexOf(a.read)), ...wd].filter(
    (op) => op.time <= a.strikeNs && op.type === 'ok' && (op.f === 'acquire' || op.f === 'renew'),
  );
  const last = before.sort((x, y) => y.time - x.time)[0];
  if (!last) return missing(`the history has no grant of ${a.who}'s before the strike`);
  const leftMs = Math.max(0, ttlMs - (a.strikeNs - last.time) / 1e6) / rate;
  const write = holderWrite(shot.history, a.own, a.read)?.invoke;
  const untilNs = write?.time ?? shot.history.endTime;
  const insideMs = (untilNs - a.strikeNs) / 1e6;
  const left = `its key had ${secs(leftMs)} left at ${rate}× after the strike (last success #${last.index})`;
  if (insideMs < leftMs)
    return missing(`${a.who} wrote ${secs(insideMs)} after the strike; ${left}: the rate had nothing to expire`);
  const { process: holder, account } = a.aim;
  const renewal = wd.find((op) => op.f === 'renew' && op.type === 'ok' && op.time > a.strikeNs && op.time < untilNs);
  const other = shot.history.ops.some((op) => op.time < untilNs && isOtherGrant(op, holder, account, a.strikeNs));
  const inside = `${a.who} was still inside its section ${secs(insideMs)} after the strike${write ? ` (its write #${write.index} at ${at(write.time)})` : ''}; ${left}`;
  if (renewal && !other) return held(`${inside}, and its renewal #${renewal.index} kept it: ${renewedAt(renewal)}`);
  return done(`${inside}: it expired while the holder held on`);
}

const renewedAt = (op: Op) => `renewed at ${at(op.time)}, no other client granted meanwhile`;
