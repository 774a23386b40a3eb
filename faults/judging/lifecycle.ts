import type { Decoded } from '../evidence.ts';
import type { PauseNodeStart } from '../evidence-types.ts';
import type { Op } from '../../history/op.ts';
import { hitOrMiss, lockProcessRanOn, lockStoppedWith, type FaultShot, type Judge } from './fault-shot.ts';

/**
 * The judges of the faults that stop, kill or churn a process (a server, the leader, a client) and let it go again:
 * each acted when its own record shows the process stopped, came back, or another took over.
 */

/**
 * pause-node on a target's server (not fencepost's): the adapter named in `evidenceFrom` acted, and the server itself
 * stopped answering (`adapter.answered: false`, the node's own probe) — a command that exited 0 on a server still
 * answering stopped nothing.
 */
function remotePause(start: Op, p: Decoded<PauseNodeStart>, via: string, target: string, pids: number[]): FaultShot {
  const seen = p.adapter ?? {};
  if (seen.acted !== true)
    return hitOrMiss(start, `${via} reported that it did not act on ${target || 'the server'}`, '');
  if (p.stopped !== true || seen.answered !== false)
    return hitOrMiss(
      start,
      `${via} ran ${String(seen.command ?? 'its pause')}, but ${target || 'the server'} still answered`,
      '',
    );
  const within = seen.stoppedAnsweringWithinMs;
  return hitOrMiss(
    start,
    null,
    `stopped ${target} through ${via} (evidence from the adapter: \`${String(seen.command)}\`${pids.length ? `, pid ${pids.join(', ')}` : ''}; the server stopped answering${within !== undefined ? ` within ${within} ms` : ''})`,
  );
}

export const pauseNode: Judge<'pause-node'> = ({ start, ev }) => {
  const p = ev.start;
  const pids = p.pids ?? [];
  const target = ev.targets.join(', ');
  if (p.evidenceFrom !== undefined) return remotePause(start, p, p.evidenceFrom, target, pids);
  if (!pids.length || p.stopped === false)
    return hitOrMiss(start, `it stopped no live process of ${target || 'any server'}`, '');
  const leader = p.leader === true ? ', the leader' : p.leader === false ? ', not the leader' : '';
  return hitOrMiss(start, null, `stopped ${target} (pid ${pids.join(', ')}${leader})`);
};

export const leaderChurn: Judge<'leader-churn'> = ({ start, end, ev }) => {
  const target = ev.targets.join(', ');
  if (!end) return hitOrMiss(start, `the run ended before the churn that began with ${target} was healed`, '');
  const rounds = ev.end?.rounds ?? [];
  const changes = rounds.filter((r) => r.next !== null && r.next !== r.stopped);
  if (!changes.length)
    return hitOrMiss(
      start,
      rounds.length
        ? `no other member took over while ${rounds.map((r) => `${r.stopped} was stopped ${String(r.stoppedMs)} ms`).join(', ')}`
        : `no round was recorded for ${target}`,
      '',
    );
  return hitOrMiss(
    start,
    null,
    `${changes.length} leader change${changes.length > 1 ? 's' : ''}: ${changes.map((r) => `${r.stopped} stopped → ${String(r.next)} led after ${String(r.stoppedMs)} ms`).join('; ')}`,
  );
};

export const pauseClient: Judge<'pause-client'> = ({ start, ev }) => {
  const p = ev.start;
  const target = ev.targets.join(', ');
  if (p.stopped !== true) return hitOrMiss(start, `${target || 'the client'} was not a live process when stopped`, '');
  const withLock = lockStoppedWith(p);
  return hitOrMiss(start, lockProcessRanOn(p), `stopped ${target}${withLock ? `, ${withLock}` : ''}`);
};

export const kill: Judge<'kill'> = ({ start, end, ev }) => {
  const target = ev.targets.join(', ');
  if (!end) return hitOrMiss(start, `the run ended before ${target} was restarted`, '');
  if (ev.end?.rejoined !== true)
    return hitOrMiss(
      start,
      `${target} was killed but did not answer a probe after its restart${ev.endNote ? ` (${ev.endNote})` : ''}`,
      '',
    );
  return hitOrMiss(
    start,
    null,
    `killed ${target}; it restarted with its data and answered a probe ${String(ev.end.restartedInMs)} ms later`,
  );
};
