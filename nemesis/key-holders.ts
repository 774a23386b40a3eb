import type { RedisServer } from '../cluster/node.ts';
import type { CriticalSection } from './critical-sections.ts';
import { pickSome, type FaultContext } from './fault.ts';
import { mastersToBreak } from './lock-servers.ts';

/** A critical section and the Redis nodes to strike so another client can take its lock. */
export interface KeyHolders {
  section: CriticalSection;
  /** Every node that had a lock key of the section's account when probed. */
  holding: RedisServer[];
  keys: string[];
  keysOn: Record<string, string[]>;
  /** On a target's servers, each key's value then (RedisKeyProbe.holding). */
  valuesOn: Record<string, Record<string, string | null>>;
  /** `needed` of `holding`, chosen with the fault's seeded random stream. */
  victims: RedisServer[];
  needed: number;
}

/**
 * The next client to enter its critical section whose lock key sits on the nodes to break, found by asking
 * every one of `masters` for the key (whatever the strategy: Redlock on five, --lock=redis or a plugin on one).
 * Sections whose key is already gone are skipped. Null when `deadline` (performance.now() ms) passes or the
 * run ends (or a strike could no longer finish its story: `ctx.aim`) first; `skipped` counts the sections passed over, for the log.
 */
export async function nextKeyHolders(
  ctx: FaultContext,
  masters: RedisServer[],
  deadline: number,
): Promise<{ found: KeyHolders | null; skipped: number }> {
  let skipped = 0;
  while (performance.now() < deadline && !ctx.aim.aborted) {
    const section = await ctx.sections.next(
      ctx.aim,
      deadline - performance.now(),
      (s) => !ctx.clients.clients[s.slot]?.paused,
    );
    if (!section) break;
    const { nodes: holding, keys, keysOn, valuesOn } = await ctx.redisKeys.holding(masters, section.account);
    const needed = mastersToBreak(holding.length, masters.length);
    // A scripted step that named its servers strikes those of them that hold the key — all of them, and enough.
    const named = ctx.only ? holding.filter((n) => ctx.only!.has(n.name)) : null;
    if (needed === 0 || (named && named.length < needed) || ctx.aim.aborted) {
      skipped++;
      continue;
    }
    return {
      found: {
        section,
        holding,
        keys,
        keysOn,
        valuesOn,
        victims: named ?? pickSome(ctx.random, holding, needed),
        needed,
      },
      skipped,
    };
  }
  return { found: null, skipped };
}
