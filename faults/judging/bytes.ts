import { WHY_ABSENT } from '../evidence-fields.ts';
import type { Decoded } from '../evidence-fields.ts';
import { hitOrMiss, type FaultShot, type ShotRecords } from './fault-shot.ts';

/**
 * Bytes a proxy fault (partition, latency) held or delayed, from its end record (`heldBytes`: per proxy): it acted
 * when a client sent a byte through one of its proxies meanwhile.
 */
export function judgeBytes(
  verb: string,
): (
  shot: Pick<ShotRecords, 'start' | 'end'> & { ev: { end: Decoded<{ heldBytes: Record<string, number> }> | null } },
) => FaultShot {
  return ({ start, end, ev }) => {
    if (!end) return hitOrMiss(start, 'no end record: the run ended before it was healed', '');
    const held = ev.end?.heldBytes;
    if (!held) return hitOrMiss(start, `its end record counts no bytes (${WHY_ABSENT.heldBytes})`, '');
    const per = Object.entries(held);
    const total = per.reduce((a, [, n]) => a + n, 0);
    return hitOrMiss(
      start,
      total > 0 ? null : `no client sent a byte through ${per.map(([k]) => k).join(', ') || 'its proxies'} meanwhile`,
      `${verb} ${total} bytes (${per
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')})`,
    );
  };
}
