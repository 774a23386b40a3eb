import type { History } from '../../history/history.ts';
import { accountOf } from '../../faults/judging/story-steps.ts';
import { fmtSpan } from '../liveness.ts';
import type { DroppedGrant } from './dropped-grants.ts';
import type { NeverReleased } from './never-released.ts';

/**
 * Double ownership after a retry: a client whose acquire was retried after a lost reply ends up holding twice.
 * Two shapes, each from a dropped grant whose acquire nonetheless ended ok (the library retried and was granted):
 * - two grants for one acquire: as the ZooKeeper acquire was granted, two nodes carried its create's name — the
 *   retry made a second instead of finding the first (reply-loss-create's read at the grant);
 * - a count of two that one release does not clear (Redisson #7367's reentrant `hincrby`): the client's next release
 *   of that account returned ok and never released the lock (never-released.ts found it).
 * A retry that found its own grant and took it once (the idempotent class) is neither, and no finding.
 */
export interface DoubleOwnership {
  /** The fault whose shot dropped the grant's reply. */
  f: string;
  shot: number;
  process: number;
  account: number;
  acquireIndex: number;
  /** Two grants: the nodes carrying its name. A count of two: the release that did not clear it. */
  nodes?: string[];
  releaseIndex?: number;
  text: string;
}

export function doubleOwnership(
  history: History,
  grants: readonly DroppedGrant[],
  unreleased: readonly NeverReleased[],
): DoubleOwnership[] {
  const out: DoubleOwnership[] = [];
  for (const g of grants) {
    if (g.completion?.type !== 'ok') continue;
    const base = { f: g.f, shot: g.shot, process: g.process, account: g.account, acquireIndex: g.acquire.index };
    const granted = `p${g.process}'s acquire #${g.acquire.index} of account ${g.account} had its grant's reply lost (${g.f} #${g.shot}), was retried and ended ok`;
    if (g.nodesAtGrant && g.nodesAtGrant.length > 1) {
      out.push({
        ...base,
        nodes: g.nodesAtGrant,
        text: `double ownership: ${granted} holding ${g.nodesAtGrant.length} lock nodes (${g.nodesAtGrant.join(', ')}): the retry made a second`,
      });
      continue;
    }
    const release = nextRelease(history, g);
    const stuck = release === undefined ? undefined : unreleased.find((n) => n.releaseIndex === release);
    if (stuck)
      out.push({
        ...base,
        releaseIndex: stuck.releaseIndex,
        text: `double ownership: ${granted}, and its release #${stuck.releaseIndex} returned ok without freeing the lock (${stuck.nextHolder === null ? 'no client was granted it again' : `p${stuck.nextHolder} waited ${fmtSpan(stuck.waitMs)}`}): held twice, released once`,
      });
  }
  return out;
}

/** History index of the ok completion of the client's first release of the account after its grant. */
function nextRelease(history: History, g: DroppedGrant): number | undefined {
  const grantAt = g.completion!.time;
  const pair = history.pairs.find(
    (p) =>
      p.invoke.process === g.process &&
      p.invoke.f === 'release' &&
      p.invoke.time > grantAt &&
      accountOf(p.invoke) === g.account,
  );
  return pair?.completion?.type === 'ok' ? pair.completion.index : undefined;
}
