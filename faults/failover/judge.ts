import type { Judge, ShotRecords } from '../judging/fault-shot.ts';
import { serverStory } from '../judging/server-story.ts';

/** A failover struck only when the promoted replica lacked the lock key. */
function keyOnPromoted({ ev }: ShotRecords<'failover'>): string | null {
  const k = ev.start.keyOnPromoted;
  if (k === false) return null;
  return k === true
    ? 'the promoted replica already had the lock key: no one else could win the lock'
    : 'no record of whether the promoted replica had the lock key';
}

export const judge: Judge<'failover'> = serverStory('failover', keyOnPromoted);
