import { hitOrMiss, type Judge } from '../judging/fault-shot.ts';

/** kill acted when its own record shows the server it killed came back with its data and answered. */

export const judge: Judge<'kill'> = ({ start, end, ev }) => {
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
