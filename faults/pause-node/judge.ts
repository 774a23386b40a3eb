import type { Decoded } from '../evidence-fields.ts';
import type { StartParams } from '../evidence.ts';
import type { Op } from '../../history/op.ts';
import { hitOrMiss, type FaultShot, type Judge } from '../judging/fault-shot.ts';

/** pause-node acted when its own record shows the server's processes stopped (on a target: the server stopped answering). */

/**
 * pause-node on a target's server (not fencepost's): the adapter named in `evidenceFrom` acted, and the server itself
 * stopped answering (`adapter.answered: false`, the node's own probe) — a command that exited 0 on a server still
 * answering stopped nothing.
 */
function remotePause(
  start: Op,
  p: Decoded<StartParams<'pause-node'>>,
  via: string,
  target: string,
  pids: number[],
): FaultShot {
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

export const judge: Judge<'pause-node'> = ({ start, ev }) => {
  const p = ev.start;
  const pids = p.pids ?? [];
  const target = ev.targets.join(', ');
  if (p.evidenceFrom !== undefined) return remotePause(start, p, p.evidenceFrom, target, pids);
  if (!pids.length || p.stopped === false)
    return hitOrMiss(start, `it stopped no live process of ${target || 'any server'}`, '');
  const leader = p.leader === true ? ', the leader' : p.leader === false ? ', not the leader' : '';
  return hitOrMiss(start, null, `stopped ${target} (pid ${pids.join(', ')}${leader})`);
};
