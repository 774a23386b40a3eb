import { hitOrMiss, type Judge } from '../judging/fault-shot.ts';

/**
 * clock-freeze-clients acted when every client it froze read its own wall clock in the frozen second both right
 * after the freeze and as it ended: their clocks stood still through it, whatever the lock then did with them.
 */
export const judge: Judge<'clock-freeze-clients'> = ({ start, end, ev }) => {
  const { clients = [], frozenAtMs, wallAtStart = {} } = ev.start;
  if (frozenAtMs === undefined) return hitOrMiss(start, 'no record of the instant the clocks stood at', '');
  if (!end) return hitOrMiss(start, 'the history ended before the clocks were unfrozen', '');
  const wallAtEnd = ev.end?.wallAtEnd ?? {};
  const second = Math.floor(frozenAtMs / 1000);
  const inSecond = (ms: number | undefined) => ms !== undefined && Math.floor(ms / 1000) === second;
  const moved = clients.filter((c) => !inSecond(wallAtStart[c]) || !inSecond(wallAtEnd[c]));
  return hitOrMiss(
    start,
    moved.length
      ? `${moved.join(', ')} did not read the frozen second (${second} s) both after the freeze and at its end`
      : null,
    `${clients.join(', ')} read their wall clocks at ${second} s from the freeze to its end`,
  );
};
