import type { RedisServer } from '../cluster/node.ts';
import type { CriticalSection } from './critical-sections.ts';
import { pickSome, type FaultContext } from './fault.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { mastersToBreak } from './lock-servers.ts';

/** How far apart a node that did not answer is asked again about the same section (until the aim's deadline). */
const PROBE_RETRY_MS = 50;

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
): Promise<{ found: KeyHolders | null; skipped: number; lastSkip?: string }> {
  let skipped = 0;
  let lastSkip: string | undefined;
  while (performance.now() < deadline && !ctx.aim.aborted) {
    const section = await ctx.sections.next(
      ctx.aim,
      deadline - performance.now(),
      (s) => !ctx.clients.clients[s.slot]?.paused,
    );
    if (!section) break;
    const probe = await askAgainIfUnanswered(ctx, masters, section.account, deadline);
    const { nodes: holding, keys, keysOn, valuesOn } = probe;
    const needed = mastersToBreak(holding.length, masters.length);
    const victims = victimsOf(holding, needed, ctx.only, ctx.random);
    if (!victims || ctx.aim.aborted) {
      skipped++;
      lastSkip = skipReason(section, probe, masters.length, needed, ctx.only);
      continue;
    }
    return {
      found: {
        section,
        holding,
        keys,
        keysOn,
        valuesOn,
        victims,
        needed,
      },
      skipped,
    };
  }
  return { found: null, skipped, ...(lastSkip ? { lastSkip } : {}) };
}

/** Why a section was passed over, in the nodes' names: what a miss's log line says, so a miss can be read. */
export function skipReason(
  section: { process: number; account: number },
  probe: { nodes: readonly { name: string }[]; unanswered: readonly { name: string }[] },
  masters: number,
  needed: number,
  only: ReadonlySet<string> | undefined,
): string {
  const names = (ns: readonly { name: string }[]) => ns.map((n) => n.name).join(', ') || 'no node';
  const unanswered = probe.unanswered.length ? `; ${names(probe.unanswered)} did not answer` : '';
  const where = `p${section.process}'s key of account ${section.account} on ${names(probe.nodes)} of ${masters}${unanswered}`;
  if (only && needed > 0) return `${where}: none of the named ${[...only].join(', ')} held it`;
  return `${where}: nothing to break`;
}

/**
 * The nodes to strike of those holding the key: `needed` of them at random — or, for a scripted step that named its
 * servers (`only`), those of the named that hold it, all of them, even fewer than `needed`: a minority struck on
 * purpose is a story of its own (faults/restart-empty/minority.ts: a lock that counts a minority as a quorum lets
 * another client in on what is left, a correct one keeps it out); the judges still call such a shot a miss where
 * their story needs the lock broken (faults/judging/aimed-shot.ts). Null: nothing to strike.
 */
export function victimsOf<N extends { name: string }>(
  holding: readonly N[],
  needed: number,
  only: ReadonlySet<string> | undefined,
  random: () => number,
): N[] | null {
  if (needed === 0) return null;
  if (!only) return pickSome(random, holding, needed);
  const named = holding.filter((n) => only.has(n.name));
  return named.length ? named : null;
}

/**
 * Which nodes hold `account`'s key — asking again, for the same section, while a running node did not answer, until
 * the aim's deadline. A probe past its timeout (300 ms, on a loaded machine) is not a node without the key: read as
 * one, the section was skipped, and a scripted strike — which has only its client's one section to aim at — missed (a
 * soak beside a CPU hog saw target-run's `restart-empty A` diverge so, 1 of 10 rounds, with no retry; CI saw the
 * gallery's `restart-empty A on redis[0,1]` diverge once more with five tries 50 ms apart). A node that stays
 * unanswered past the deadline is still never read as "no key": the section is skipped, and the skip says why.
 */
async function askAgainIfUnanswered(
  ctx: FaultContext,
  masters: RedisServer[],
  account: number,
  deadline: number,
): ReturnType<FaultContext['redisKeys']['holding']> {
  let probe = await ctx.redisKeys.holding(masters, account);
  while (probe.unanswered.length > 0) {
    if (performance.now() + PROBE_RETRY_MS > deadline || ctx.aim.aborted) break;
    await sleep(PROBE_RETRY_MS);
    probe = await ctx.redisKeys.holding(masters, account);
  }
  return probe;
}
