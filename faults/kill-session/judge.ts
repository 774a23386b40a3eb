import type { Judge, ShotRecords } from '../judging/fault-shot.ts';
import { serverStory } from '../judging/server-story.ts';

/** kill-session struck only when it ended a session that held the holder's advisory lock (faults/kill-session/inject.ts). */
function sessionEnded({ ev }: ShotRecords<'kill-session'>): string | null {
  return ev.start.backends?.length ? null : 'no session of the holder held an advisory lock: nothing was ended';
}

export const judge: Judge<'kill-session'> = serverStory('kill-session', sessionEnded);
