import type { Judge, ShotRecords } from '../judging/fault-shot.ts';
import { serverStory } from '../judging/server-story.ts';
import { leaseAtRate } from './lease-at-rate.ts';
import { sessionAtRate } from './session-at-rate.ts';

/** How far a probe's slope may be from the rate set for the shot to count as the rate reaching the process. */
export const SLOPE_TOLERANCE = 0.05;

/**
 * Whether the rate reached every node it struck, from the end record: the node served clock reads through the shim
 * while the rate held, and the clock that matters, read from outside (a Redis probe key's PTTL, ZooKeeper's uptime,
 * Postgres's clock_timestamp(): nemesis/server-clock-probe.ts), moved at the rate (±5 %) on the harness's clock. Null when it did;
 * else why not — a shot whose rate never reached a process proves nothing, whatever the history shows after it.
 */
export function rateNotReached({ ev }: Pick<ShotRecords<'clock-rate'>, 'ev'>): string | null {
  const rate = ev.start.rate;
  const nodes = ev.start.aim?.struck ?? [];
  const e = ev.end;
  if (!e) return 'the history ended before the rate was measured';
  if (rate === undefined) return 'the start record has no rate';
  for (const n of nodes) {
    const reads = e.reads?.[n] ?? 0;
    if (reads <= 0) return `${n} read no clock through the shim while the rate held: the rate never reached it`;
    const slope = e.slopes?.[n];
    const probe = probedClock(n);
    if (slope === undefined) return `${n}'s ${probe.what} could not be read twice: no slope to prove the rate by`;
    if (Math.abs(slope / rate - 1) > SLOPE_TOLERANCE)
      return `${n}'s ${probe.what} ${probe.moved} at ${slope} ms per ms over ${e.probeMs?.[n]} ms, not ${rate} ± 5 %`;
  }
  const back = nodes.filter((n) => (e.timeAfterHealUs?.[n] ?? Infinity) < (e.timeBeforeHealUs?.[n] ?? -Infinity));
  if (back.length) return `the clock of ${back.join(', ')} stepped back when the rate went back to 1`;
  return null;
}

/** What a struck node's slope is of, by its name (`redis[0]`, `zk[1]`, `pg`), in the words of a miss. Pure. */
export function probedClock(node: string): { what: string; moved: string } {
  if (node.startsWith('zk')) return { what: 'uptime (mntr zk_uptime)', moved: 'ran' };
  if (node === 'pg') return { what: 'clock_timestamp()', moved: 'ran' };
  return { what: 'probe key', moved: 'fell' };
}

export const judge: Judge<'clock-rate'> = serverStory('clock-rate', rateNotReached, {
  // A ZooKeeper lease is its session, kept alive by pings the history does not show: judged by who was granted.
  'lease-expired': (shot, a) =>
    (shot.ev.start.aim?.struck ?? []).some((n) => n.startsWith('zk')) ? sessionAtRate(shot, a) : leaseAtRate(shot, a),
});
