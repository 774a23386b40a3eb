import type { Decoded } from '../evidence-fields.ts';
import type { ServerPartitionEnd, ServerPartitionStart } from '../evidence-parts.ts';
import { hitOrMiss, type FaultShot, type ShotRecords } from './fault-shot.ts';

/**
 * A server↔server partition (isolate-leader, majority-minority, bridge, majorities-ring) acted when its drops held
 * bytes between the sides (its end record's `totalHeldBytes`, read from the nftables counters before the heal):
 * the members tried to talk across the cut and could not. How the members saw the ensemble at the start and just
 * before the heal (a leader change, a minority without a leader) is part of the evidence, not the rule: a
 * partition shorter than an election timeout still held heartbeats.
 */
export const judgeServerPartition = ({
  start,
  end,
  ev,
}: Pick<ShotRecords, 'start' | 'end'> & {
  ev: { start: Decoded<ServerPartitionStart>; end: Decoded<ServerPartitionEnd> | null };
}): FaultShot => {
  if (!end) return hitOrMiss(start, 'no end record: the run ended before the partition was healed', '');
  const s = ev.start;
  const total = ev.end?.totalHeldBytes;
  if (total === undefined) return hitOrMiss(start, 'its end record counts no held bytes', '');
  const sides = (s.sides ?? []).map(
    ({ members, clients }) =>
      `{${members.join(', ')}}${clients.length ? ` with ${clients.join(', ')}` : ' (no client connected)'}`,
  );
  const views = (v: Readonly<Record<string, string>> | undefined) =>
    Object.entries(v ?? {})
      .map(([k, x]) => `${k}: ${x}`)
      .join(', ');
  const leader = typeof s.leader === 'string' ? `; leader ${s.leader} at the start` : '';
  const during = views(ev.end?.viewsDuring);
  return hitOrMiss(
    start,
    total > 0 ? null : `no member sent a byte across the cut (${sides.join(' | ') || 'no sides recorded'}) meanwhile`,
    `held ${total} bytes in ${ev.end?.heldPackets ?? '?'} packets between ${sides.join(' and ')}${leader}${during ? `; before the heal: ${during}` : ''}`,
  );
};
