import type { Judge } from '../judging/fault-shot.ts';
import { at, done, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { watchdogProcess } from '../../history/process-role.ts';

/** The holder's requests to Redis after its read, as the history names them: a failing one noticed the reset. */
const REDIS_STEPS = ['renew', 'release'];

/**
 * reset's story, from its records (inject.ts) and the history: the holder's own Redis connections were reset after
 * its read and before it wrote or released, and the holder noticed — a new connection on its route (the heal's
 * record), or its next renewal or release after the reset failing.
 */
export const judge: Judge<'reset'> = (shot) => {
  const { start, ev } = shot;
  const s = ev.start;
  const holder = s.process ?? -1;
  const who = `p${holder}`;
  const ops = [...(shot.byProcess.get(holder) ?? []), ...(shot.byProcess.get(watchdogProcess(holder)) ?? [])];
  return tell(start, 'reset', {
    'connection-reset': () => {
      if (!s.resetOn?.length || s.resetAt === undefined)
        return missing(ev.startNote || `no connection of ${who} was reset`);
      const left = ops.find(
        (op) =>
          op.process === holder &&
          op.type === 'invoke' &&
          (op.f === 'write' || op.f === 'release') &&
          op.index > (s.readIndex ?? -1) &&
          op.time <= s.resetAt!,
      );
      if (left) return missing(`${who} had begun its ${left.f} #${left.index} before the reset`);
      const counts = s.resetOn.map((n) => `${n} (${s.resets?.[n] ?? '?'})`);
      return done(`${who}'s connections were reset on ${counts.join(', ')} at ${at(s.resetAt)}, inside its section`);
    },
    'reset-seen': () => {
      const back = ev.end?.reconnectedOn ?? [];
      if (back.length) return done(`${who} dialled ${back.join(', ')} again within ${ev.end?.waitedMs ?? '?'} ms`);
      const next = ops
        .filter((op) => op.type === 'invoke' && REDIS_STEPS.includes(op.f) && op.time >= s.resetAt!)
        .sort((a, b) => a.time - b.time)[0];
      const completion = next ? shot.history.completionOf(next) : undefined;
      if (next && completion && completion.type !== 'ok')
        return done(
          `${who}'s ${next.f} #${next.index} after the reset ended ${completion.type}${completion.error ? ` (${completion.error})` : ''}`,
        );
      return missing(
        next
          ? `${who} never dialled again and its ${next.f} #${next.index} after the reset ${completion ? 'succeeded' : 'had no answer'}`
          : `${who} neither dialled again nor sent a renewal or release after the reset`,
      );
    },
  });
};
