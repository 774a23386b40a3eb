import type { Judge } from '../judging/fault-shot.ts';
import { done, inProgressAt, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';

/**
 * reply-loss-acquire's story, from its records (faults/reply-loss-acquire/inject.ts) and the history: a granted
 * acquire's reply was dropped, Redis held the key with exactly the value that SET wrote (read right after the drop),
 * and the client's acquire in progress at the drop never reported the lock acquired. A key without that value is a
 * miss: nothing shows the SET took effect.
 */
export const judge: Judge<'reply-loss-acquire'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-acquire', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no reply to a granted acquire of ${who} was dropped`);
      return done(
        `the reply to ${who}'s granted ${e.request ?? 'SET'} of ${e.key ?? 'its key'} was dropped on ${e.droppedOn.join(', ')}`,
      );
    },
    committed: () => {
      const dropped = e?.droppedOn ?? [];
      if (e?.sent === undefined || e.key === undefined)
        return missing('the dropped request carried no key and value to read back');
      const held = dropped.filter((n) => e.valuesAfter?.[n] === e.sent);
      const unanswered = dropped.filter((n) => e.unanswered?.includes(n));
      const other = dropped.filter((n) => !held.includes(n) && !unanswered.includes(n));
      if (held.length && !other.length)
        return done(`right after the drop ${e.key} held ${who}'s value on ${held.join(', ')}`);
      if (other.length)
        return missing(
          `${e.key} did not hold ${who}'s value on ${other.join(', ')}: nothing shows the SET took effect there`,
        );
      return missing(`no node answered the read after the drop (${unanswered.join(', ')})`);
    },
    unacknowledged: () => {
      const at = e?.droppedAt;
      if (at === undefined) return missing('the drop has no time on record');
      const acquire = inProgressAt(shot.byProcess.get(holder) ?? [], 'acquire', at, shot.history);
      if (!acquire) return missing(`no acquire of ${who} was in progress at the drop`);
      const completion = shot.history.completionOf(acquire);
      const resent = e?.newConnectionsBeforeAnswer ?? 0;
      if (completion?.type === 'ok' && resent > 0)
        return done(
          `${who}'s acquire #${acquire.index} ended ok only on a resend, over ${resent} new connection${resent > 1 ? 's' : ''} opened after the drop: the dropped reply itself was never heard`,
        );
      if (completion?.type === 'ok')
        return missing(`${who}'s acquire #${completion.index} completed ok: the client heard an answer`);
      const how = completion ? `${completion.type}${completion.error ? ` (${completion.error})` : ''}` : 'no answer';
      return done(`${who}'s acquire #${acquire.index} ended ${how}`);
    },
  });
};
