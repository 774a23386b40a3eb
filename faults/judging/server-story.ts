import type { AimedShot } from './aimed-shot.ts';
import type { Judge, ShotRecords } from './fault-shot.ts';
import { at, done, held, holderWrite, holderWrote, missing, secs, type StepFinding } from './story-steps.ts';
import { granted, struck, tell, type Second } from './story.ts';

/** The aimed faults that strike the lock's servers: their stories share the steps after the strike. */
type ServerStoryFault = 'restart-empty' | 'clock' | 'failover' | 'kill-session';

/**
 * restart-empty, clock, failover and kill-session: struck the servers (and what else the fault's own record must
 * show: `also`) → (restart-empty: restarted) → another client granted the lock and read → the holder wrote → the
 * other client wrote too.
 */
function serverStory<F extends ServerStoryFault>(
  f: F,
  also: (shot: ShotRecords<F>) => string | null,
  restartedStep?: (shot: ShotRecords<F>, a: AimedShot) => StepFinding,
): Judge<F> {
  return (shot) => {
    let a!: AimedShot;
    let second!: Second;
    return tell(shot.start, f, {
      struck: struck(
        shot,
        shot.ev.start.aim,
        (x) => (a = x),
        () => also(shot),
      ),
      ...(restartedStep ? { restarted: () => restartedStep(shot, a) } : {}),
      granted: () => granted(shot, a, (s) => (second = s)),
      'holder-wrote': () => holderWrote(holderWrite(shot.history, a.own, a.read), a.who, second.read.time),
      'both-wrote': () => holderWrote(holderWrite(shot.history, second.own, second.read), second.who, second.read.time),
    });
  };
}

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

function keyOnPromoted({ ev }: ShotRecords<'failover'>): string | null {
  const k = ev.start.keyOnPromoted;
  if (k === false) return null;
  return k === true
    ? 'the promoted replica already had the lock key: no one else could win the lock'
    : 'no record of whether the promoted replica had the lock key';
}

/** kill-session struck only when it ended a session that held the holder's advisory lock (nemesis/faults/kill-session.ts). */
function sessionEnded({ ev }: ShotRecords<'kill-session'>): string | null {
  return ev.start.backends?.length ? null : 'no session of the holder held an advisory lock: nothing was ended';
}

export const restartEmpty = serverStory('restart-empty', remoteKill, restarted);
/** A clock jump that could move no clock of the servers it struck (the decoder says when) moved nothing. */
export const clock = serverStory('clock', ({ ev }) => ev.unmovable);
export const failover = serverStory('failover', keyOnPromoted);
export const killSession = serverStory('kill-session', sessionEnded);
