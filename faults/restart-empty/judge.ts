import type { Judge } from '../judging/fault-shot.ts';
import type { AimedShot } from '../judging/aimed-shot.ts';
import type { ShotRecords } from '../judging/fault-shot.ts';
import { serverStory } from '../judging/server-story.ts';
import { at, done, held, holderWrite, missing, secs, type StepFinding } from '../judging/story-steps.ts';
import { keptOut, scriptedMinority } from './minority.ts';

/**
 * restart-empty's second step: the struck nodes answered again, empty, before the holder's write completed — or a
 * remedy kept them from it, as the fault's own records show: down for at least the TTL (--restart-delay), or back with
 * their AOF (wiped: false).
 */
function restarted(shot: ShotRecords<'restart-empty'>, a: AimedShot): StepFinding {
  const { end, history: h, ev } = shot;
  const p = ev.start;
  const nodes = p.killed ? p.killed.join(', ') : 'the struck nodes';
  if (!end) return missing(`the history ended with ${nodes} still down`);
  // On a target the servers said it after the restart (the end record): the key back on them, or gone.
  const wiped = p.wiped ?? ev.end?.wiped;
  if (wiped === false)
    return held(
      p.evidenceFrom !== undefined
        ? `${nodes} answered again with the key (the servers' own answer after the restart through ${p.evidenceFrom})`
        : `${nodes} came back with their AOF: the key returned`,
    );
  const delayMs = p.restartDelayMs ?? 0;
  const ttlMs = p.ttlMs;
  if (ttlMs !== undefined && delayMs >= ttlMs)
    return held(
      `${nodes} stayed down ${secs(delayMs)} ≥ the TTL (${secs(ttlMs)}): every lease they granted ran out first`,
    );
  const write = holderWrite(h, a.own, a.read)?.completion;
  if (write && write.time <= end.time)
    return missing(
      `${nodes} answered again only at ${at(end.time)}, after ${a.who}'s write completed (#${write.index})`,
    );
  if (p.evidenceFrom !== undefined)
    return done(
      `${nodes} answered again without the key at ${at(end.time)} (evidence from ${p.evidenceFrom}: the servers' own answers after its kill and start)`,
    );
  return done(`${nodes} answered again, empty, at ${at(end.time)}`);
}

/**
 * restart-empty on a target's servers: the adapter's kill counts only when the servers themselves stopped answering
 * (their own probe after the kill), the evidence a local run has from the processes it killed.
 */
function remoteKill({ ev: { start: p } }: ShotRecords<'restart-empty'>): string | null {
  if (p.evidenceFrom === undefined) return null;
  return p.unreachable === true
    ? null
    : `${p.evidenceFrom} killed ${p.killed ? p.killed.join(', ') : 'the nodes'}, but they still answered afterwards`;
}

export const judge: Judge<'restart-empty'> = serverStory(
  'restart-empty',
  remoteKill,
  { restarted },
  {
    of: scriptedMinority,
    notGranted: keptOut,
  },
);
