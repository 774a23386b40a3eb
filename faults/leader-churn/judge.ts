import { hitOrMiss, type Judge } from '../judging/fault-shot.ts';

/** leader-churn acted when its own record shows another member took over from a stopped leader. */

export const judge: Judge<'leader-churn'> = ({ start, end, ev }) => {
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
