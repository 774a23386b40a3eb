/**
 * The faults that lose or hold a reply after the server acted, and reset: the ones whose damage the lost-replies
 * checks name. A wait overlapping any other fault (latency, partition, pause…) may be that fault's own doing, so
 * never-released leaves it alone; a wait under these is what the checks are for.
 */
export const LOST_REPLY_FAULTS: ReadonlySet<string> = new Set([
  'reply-loss',
  'reply-loss-acquire',
  'reply-loss-renew',
  'reply-loss-create',
  'one-way',
  'reset',
]);
