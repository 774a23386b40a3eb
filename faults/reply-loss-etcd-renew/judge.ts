import type { Judge } from '../judging/fault-shot.ts';
import { done, missing } from '../judging/story-steps.ts';
import { tell } from '../judging/story.ts';

/**
 * How far below its granted TTL a lease renewed right before the read may show: etcd reports whole seconds, truncated.
 * A lease last renewed a keep-alive period (TTL/3 > 1 s, the fault's --ttl floor) earlier shows less.
 */
export const ROUNDING_S = 1;
/**
 * How soon after the drop the lease must have been read: etcd3 reopens a failed keep-alive stream 100 ms after it
 * failed (node_modules/etcd3/lib/lease.js, handleKeepaliveError), and that stream's first keep-alive renews again. A
 * read after it could show that renewal, not the dropped one's.
 */
export const READ_WITHIN_MS = 100;

/**
 * reply-loss-etcd-renew's story, from its records (inject.ts): a keep-alive's answer (etcd said the lease was alive)
 * was dropped; etcd had renewed the lease — its remaining TTL right after the drop was back at the granted TTL —
 * and the client heard none of it (the proxy dropped the answer's bytes and reset the connection). Keep-alives are
 * outside the history (the client library sends them on its own), so the proxy's record is the client's side.
 */
export const judge: Judge<'reply-loss-etcd-renew'> = (shot) => {
  const { start, end, ev } = shot;
  const e = ev.end;
  const holder = e?.process ?? ev.start.process ?? -1;
  const who = `p${holder}`;
  return tell(start, 'reply-loss-etcd-renew', {
    'reply-dropped': () => {
      if (!end) return missing('the history ended before the fault was healed');
      if (!e?.droppedOn?.length) return missing(ev.endNote || `no answer to ${who}'s keep-alive was dropped`);
      return done(
        `the answer to ${who}'s keep-alive of lease ${e.lease ?? '?'} (${e.answer ?? 'unread'}) was dropped on ${e.droppedOn.join(', ')}`,
      );
    },
    committed: () => {
      if (e?.readError !== undefined) return missing(`the lease was not read after the drop: ${e.readError}`);
      const ttl = e?.ttlAfterS;
      const granted = e?.grantedTtlS;
      if (ttl === undefined || granted === undefined) return missing('the lease was not read after the drop');
      if (e?.readAfterMs === undefined || e.readAfterMs >= READ_WITHIN_MS)
        return missing(
          `the lease was read ${e?.readAfterMs ?? '?'} ms after the drop: the client's next keep-alive may have renewed it by then`,
        );
      if (ttl < granted - ROUNDING_S)
        return missing(`the lease's TTL right after the drop was ${ttl} s of ${granted} s: nothing shows a renewal`);
      return done(`${e.readAfterMs} ms after the drop the lease had ${ttl} s of its ${granted} s left: renewed`);
    },
    unacknowledged: () => {
      if (!e?.droppedBytes || !e.resets)
        return missing('the proxy recorded no dropped answer bytes and reset: the client may have heard it');
      return done(`the proxy dropped ${e.droppedBytes} bytes on their way to ${who} and reset the connection`);
    },
  });
};
