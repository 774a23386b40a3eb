import type { Judge } from '../judging/fault-shot.ts';
import { shimCannotMove } from '../clock-shim.ts';
import type { ShotRecords } from '../judging/fault-shot.ts';
import { serverStory } from '../judging/server-story.ts';

/**
 * A clock jump that could move no clock of the servers it struck moved nothing: a shot on etcd members only (a run
 * from before clock was refused for etcd) says why.
 */
export function unmovableClocks({ ev }: Pick<ShotRecords<'clock'>, 'ev'>): string | null {
  const nodes = ev.start.aim?.struck ?? [];
  return nodes.length && nodes.every((n) => /^etcd\[\d+\]$/.test(n))
    ? `it struck ${nodes.join(', ')}: ${shimCannotMove('etcd')}`
    : null;
}

export const judge: Judge<'clock'> = serverStory('clock', unmovableClocks);
