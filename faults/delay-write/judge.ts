import type { Op } from '../../history/op.ts';
import type { Judge } from '../judging/fault-shot.ts';
import { at, done, holderWrote, leaseRanOut, missing, type OtherSection, secs } from '../judging/story-steps.ts';
import { otherWrote, tell } from '../judging/story.ts';

/**
 * delay-write's story, from its `end` record (what the hold saw of the held write: faults/delay-write/inject.ts)
 * and the history: the write went into the hold, stayed there a TTL, another client wrote meanwhile, the bytes were
 * delivered with the clients still running, and the late write then committed (or was refused).
 */
export const judge: Judge<'delay-write'> = (shot) => {
  const { start, end, history: h, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const account = e?.account ?? ev.start.account ?? -1;
  const who = `p${holder}`;
  let write: { invoke: Op; completion: Op | null } | undefined;
  let other!: OtherSection;
  return tell(start, 'delay-write', {
    'write-held': () => {
      if (!end) return missing('the history ended before the hold was released');
      if (e?.hit !== true) return missing(ev.endNote || `${who} sent no write into the hold`);
      const invoke = (shot.byProcess.get(holder) ?? []).find(
        (op) => op.f === 'write' && op.type === 'invoke' && op.time === e.writeTime,
      );
      write = invoke ? { invoke, completion: h.completionOf(invoke) ?? null } : undefined;
      return done(`${who}'s write${invoke ? ` #${invoke.index}` : ''} went into the hold`);
    },
    'lease-expired': () => {
      const heldMs = e?.writeHeldMs;
      const ttlMs = ev.start.ttlMs;
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
        ev.start.heldAtTime ?? start.time,
        end!.time,
        (o) => (other = o),
        'during the hold',
      ),
    delivered: () =>
      e?.cutShort === true
        ? missing(`the run's end cut the hold short: ${ev.endNote}`)
        : done(`delivered at ${at(end!.time)}`),
    'holder-wrote': () => holderWrote(write, who, other.read!.time),
  });
};
