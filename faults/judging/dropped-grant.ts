import type { Op } from '../../history/op.ts';
import type { FaultName } from '../fault-names.ts';
import type { ShotRecords } from './fault-shot.ts';
import { accountOf, inProgressAt } from './story-steps.ts';

/**
 * A grant the server made whose reply was lost, as a fault that drops an acquire's reply reads it from its own
 * evidence and the acquire it hit (its folder's dropped-grant.ts): only a committed one — the server's effect read
 * right after the drop, by the rule its judge uses — since a drop with no server effect orphaned nothing. What
 * checkers/lost-replies/ measures orphans and double ownership from.
 */
export interface DroppedGrant {
  f: string;
  /** History index of the fault's start record. */
  shot: number;
  process: number;
  account: number;
  /** What the server held for the client, in words: `its key`, `its lock node`. */
  held: string;
  /** When the reply was dropped (ns, the history's clock). */
  droppedAt: number;
  /** The lock's TTL (session timeout) as the fault recorded it; null: not recorded. */
  ttlMs: number | null;
  /** The key's PTTL read right after the drop (ms; -1: it never expires); null: not read. */
  pttlMs: number | null;
  /**
   * Why the lock has no TTL at all (its row's `noLease`: a session advisory lock): the orphan is then measured
   * against the client's own retry budget alone, never the run's --ttl.
   */
  noLease?: string;
  /** The acquire in progress at the drop, and how it ended (null: it never did before the history ended). */
  acquire: Op;
  completion: Op | null;
  /** The lock nodes carrying the client's name as that acquire was granted (absent: not read, or not granted). */
  nodesAtGrant?: string[];
}

/** Fault F's reader of one shot: its committed dropped grant, or null (no drop, no server effect, no acquire hit). */
export type GrantReader<F extends FaultName = FaultName> = (shot: ShotRecords<F>) => DroppedGrant | null;

/** The acquire of `process` a drop at `atNs` hit, the account it asked for, and how it ended; null: none was open. */
export function acquireHit(
  shot: ShotRecords,
  process: number,
  atNs: number,
): Pick<DroppedGrant, 'acquire' | 'completion' | 'account'> | null {
  const acquire = inProgressAt(shot.byProcess.get(process) ?? [], 'acquire', atNs, shot.history);
  const account = acquire && accountOf(acquire);
  if (!acquire || account === undefined) return null;
  return { acquire, account, completion: shot.history.completionOf(acquire) ?? null };
}
