import type { AccountRef } from '../../history/bank.ts';
import type { FaultAim } from '../fault-aim.ts';
import { faultFacts } from '../catalogue.ts';
import type { Op } from '../../history/op.ts';
import type { ShotRecords } from './fault-shot.ts';
import { WHY_ABSENT } from '../evidence-fields.ts';

/** A shot of a fault aimed at the lock whose aim the history confirms: the holder it caught, inside its section. */
export interface AimedShot {
  aim: FaultAim;
  /** The holder's `read` ok that opened the section the fault struck in. */
  read: Op;
  /** Every op of the holder's process, in its order. */
  own: readonly Op[];
  /** When it struck, on the history's clock (ns): the aim's `atTime`, or the start record's time for an aim without. */
  strikeNs: number;
  /** `p3`. */
  who: string;
  /** What it struck, in the words the catalogue gives (`paused p3`, `killed redis[0], redis[2]`), with where. */
  evidence: string;
}

/**
 * Whether one `start` record of a fault aimed at the lock struck where it says, from its `aim` (recorded when it
 * struck) checked against the history itself: the holder's `read` ok is there, the holder started nothing between
 * that read and the moment the fault struck — so it was still inside its critical section — and every node struck
 * had the lock key, as many of them as breaking the lock needs. Decided by the ops' times when the aim has them
 * (the history is renumbered when it is put in time order after the run), else by the aim's journal indexes (the
 * decoder says which aims lack times: faults/evidence.ts). The first step of every aimed fault's story.
 */
export function confirmAim(
  { start, history, byProcess }: Pick<ShotRecords, 'start' | 'history' | 'byProcess'>,
  aim: FaultAim | undefined,
): AimedShot | { miss: string } {
  if (!aim) return { miss: `no aim recorded with it (${WHY_ABSENT.aim})` };
  const who = `p${aim.process}`;
  const own = byProcess.get(aim.process) ?? [];
  const byTime = typeof aim.readTime === 'number' && typeof aim.atTime === 'number';
  const read = byTime ? own.find((op) => op.time === aim.readTime && op.f === 'read') : history.op(aim.readIndex);
  if (
    !read ||
    read.process !== aim.process ||
    read.f !== 'read' ||
    read.type !== 'ok' ||
    (read.value as Partial<AccountRef> | null)?.account !== aim.account
  ) {
    const which = byTime
      ? `the history has no read of account ${aim.account} by ${who} at ${(aim.readTime! / 1e6).toFixed(1)} ms`
      : `history #${aim.readIndex} is not ${who}'s read of account ${aim.account}`;
    return { miss: `${which}, which the fault says it caught` };
  }
  // A process's ops are in its own order in either numbering: the one after its read is what it did next.
  const next = own[own.indexOf(read) + 1];
  const strikeAt = byTime ? `${(aim.atTime! / 1e6).toFixed(1)} ms` : `#${aim.atIndex}`;
  if (next !== undefined && (byTime ? next.time <= aim.atTime! : next.index < aim.atIndex)) {
    return {
      miss: `${who} had left its critical section (#${next.index}: ${next.f} ${next.type}) before the fault struck (at ${strikeAt})`,
    };
  }
  const struck = aim.struck ?? [];
  let keys = '';
  if (aim.keysOn) {
    const bare = struck.filter((n) => !(aim.keysOn![n]?.length > 0));
    if (!struck.length) return { miss: 'it struck no node' };
    if (bare.length) return { miss: `${bare.join(', ')} held no lock key of account ${aim.account} when struck` };
    if (aim.needed !== undefined && struck.length < aim.needed)
      return { miss: `it struck ${struck.length} of the ${aim.needed} nodes the lock needed broken` };
    keys = `; ${struck.map((n) => `${n} held ${aim.keysOn![n].join(', ')}`).join(', ')}`;
  }
  const what = (faultFacts(start.f)?.aim?.struck ?? 'struck {nodes}')
    .replace('{process}', who)
    .replace('{nodes}', struck.join(', '));
  return {
    aim,
    read,
    own,
    strikeNs: byTime ? aim.atTime! : start.time,
    who,
    evidence: `${what} while ${who} was inside its critical section on account ${aim.account} (read #${read.index}, struck at ${strikeAt})${keys}`,
  };
}
