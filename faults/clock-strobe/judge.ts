import { hitOrMiss, type Judge } from '../judging/fault-shot.ts';

/** clock-strobe acted when the shim could move a clock of the lock's servers (its start record's `moved`). */
export const judge: Judge<'clock-strobe'> = ({ start, ev }) => {
  const moved = ev.start.moved;
  if (moved === undefined) return hitOrMiss(start, 'no record of which server clocks it could move', '');
  return hitOrMiss(
    start,
    moved.length ? null : "the shim can move none of the lock's server clocks",
    `strobed the clocks of ${moved.join(', ')}`,
  );
};
