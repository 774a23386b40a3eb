import type { AimedShot } from '../judging/aimed-shot.ts';
import type { ShotRecords } from '../judging/fault-shot.ts';
import { at, done, held, holderWrite, isOtherGrant, missing, secs, type StepFinding } from '../judging/story-steps.ts';

/**
 * clock-rate's `lease-expired` step on ZooKeeper, where the lease is the holder's session: the leader expires it once
 * no ping touched it for its timeout of the leader's clock — at r, timeout/r of real time — and the pings are not in
 * the history. So the step is read from what is: done when another client was granted the holder's account after the
 * strike while the holder had not yet written (ZooKeeper hands the lock on only once the holder's ephemeral node is
 * gone with its session); held when the holder wrote first and nobody was granted meanwhile (its client's pings,
 * every third of the timeout of real time, kept the session inside the faster clock's timeout). Pure.
 */
export function sessionAtRate(
  shot: Pick<ShotRecords<'clock-rate'>, 'ev' | 'history'>,
  a: Pick<AimedShot, 'aim' | 'own' | 'read' | 'strikeNs' | 'who'>,
): StepFinding {
  const { rate, ttlMs } = shot.ev.start;
  if (rate === undefined || ttlMs === undefined)
    return missing('the shot recorded no rate or session timeout to expire the session by');
  const write = holderWrite(shot.history, a.own, a.read)?.invoke;
  const untilNs = write?.time ?? shot.history.endTime;
  const { process: holder, account } = a.aim;
  const other = shot.history.ops.find((op) => op.time < untilNs && isOtherGrant(op, holder, account, a.strikeNs));
  const timeout = `a session timeout of ${secs(ttlMs)} lasts ${secs(ttlMs / rate)} real on the leader's clock at ${rate}×`;
  if (other)
    return done(
      `p${other.process} was granted account ${account} at ${at(other.time)}, ${secs((other.time - a.strikeNs) / 1e6)} after the strike, while ${a.who} had not yet written: its session expired on the leader (${timeout})`,
    );
  if (write)
    return held(
      `${a.who} wrote ${secs((write.time - a.strikeNs) / 1e6)} after the strike and no other client was granted meanwhile: its client's pings kept the session alive (${timeout})`,
    );
  return missing(`${a.who} neither wrote nor lost its lock before the history ended`);
}
