import { hitOrMiss, lockProcessRanOn, lockStoppedWith, type Judge } from '../judging/fault-shot.ts';

/** pause-client acted when its own record shows the client (and its lock process, if any) stopped. */

export const judge: Judge<'pause-client'> = ({ start, ev }) => {
  const p = ev.start;
  const target = ev.targets.join(', ');
  if (p.stopped !== true) return hitOrMiss(start, `${target || 'the client'} was not a live process when stopped`, '');
  const withLock = lockStoppedWith(p);
  return hitOrMiss(start, lockProcessRanOn(p), `stopped ${target}${withLock ? `, ${withLock}` : ''}`);
};
