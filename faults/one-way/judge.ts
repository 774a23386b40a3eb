import type { Judge } from '../judging/fault-shot.ts';
import { done, inProgressAt, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import { EXTENDED_MARGIN_MS } from '../reply-loss-renew/judge.ts';

/**
 * one-way's story, from its records (inject.ts) and the history: the replies to the holder were held on its route
 * while its requests flowed; Redis carried out a renewal meanwhile (read during the fault: the holder's value still
 * under the key, its PTTL past what the time between the reads left of the first read); and the holder heard
 * nothing of it while the replies were held. Held bytes with no renewal on the server are a miss.
 */
export const judge: Judge<'one-way'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'one-way', {
    'replies-held': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.heldOn?.length) return missing(ev.endNote || `no reply to ${who} was held`);
      const bytes = e.heldOn.map((n) => `${n} (${e.heldReplyBytes?.[n] ?? '?'} bytes)`);
      return done(`the replies to ${who} were held on ${bytes.join(', ')} while its requests flowed`);
    },
    committed: () => {
      const apart = e?.readsApartMs;
      if (apart === undefined) return missing('the key was not read during the fault');
      const extended: string[] = [];
      for (const n of e?.heldOn ?? []) {
        const owner = ev.start.ownerValues?.[n];
        const p0 = ev.start.pttlMs?.[n];
        const p1 = e!.pttlAfterMs?.[n];
        if (owner === undefined || p0 === undefined) return missing(`${n} held no key of ${who} as the fault began`);
        if (e!.valuesAfter?.[n] !== owner) return missing(`${who}'s value was no longer under the key on ${n}`);
        if (p1 === undefined || p1 <= p0 - apart + EXTENDED_MARGIN_MS)
          return missing(`no renewal reached ${n}: PTTL ${p0} ms, then ${p1} ms ${apart} ms later`);
        extended.push(`${n} (PTTL ${p0} → ${p1} ms over ${apart} ms)`);
      }
      return done(`a renewal of ${who} extended its key on ${extended.join(', ')}`);
    },
    unacknowledged: () => {
      const at = e?.heldAt;
      if (at === undefined || !end) return missing('the held reply has no time on record');
      const renew = inProgressAt(shot.byProcess.get(watchdogProcess(holder)) ?? [], 'renew', at, shot.history);
      if (!renew) return missing(`no renewal of ${who}'s watchdog was in progress as its reply was held`);
      const completion = shot.history.completionOf(renew);
      if (completion?.type === 'ok' && completion.time < end.time)
        return missing(`${who}'s renewal #${completion.index} was answered ok during the fault`);
      const how = !completion
        ? 'had no answer'
        : completion.type === 'ok'
          ? 'was answered only after the heal'
          : `ended ${completion.type}${completion.error ? ` (${completion.error})` : ''}`;
      return done(`${who}'s renewal #${renew.index} ${how}`);
    },
  });
};
