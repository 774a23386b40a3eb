/**
 * Whether Redis acted on a release whose reply was dropped — read from the server, never from the client, which
 * heard nothing. Per node whose reply was dropped: the owner's value at the section's start against the value right
 * after the drop. Gone or changed, with the key's PTTL not yet run out, is the release committed; unchanged is a
 * request that never took effect (a miss, never a hit); a node that held no owner key, did not answer, or whose key
 * may have expired meanwhile tells nothing.
 */
export interface ReleaseReads {
  readonly droppedOn: readonly string[];
  readonly ownerValues: Readonly<Record<string, string>>;
  readonly pttlMs: Readonly<Record<string, number>>;
  readonly valuesAfter: Readonly<Record<string, string>>;
  readonly unanswered: readonly string[];
  readonly readsApartMs: number | undefined;
}

export interface ServerEffect {
  /** Nodes where the owner's key was gone (or another's) right after the drop: committed. */
  readonly acted: string[];
  /** Nodes where the owner's key was still there: the release never took effect. */
  readonly untouched: string[];
  /** Nodes that tell nothing, each with why. */
  readonly unknown: string[];
}

export function serverEffect(r: ReleaseReads): ServerEffect {
  const effect: ServerEffect = { acted: [], untouched: [], unknown: [] };
  for (const node of r.droppedOn) {
    const owner = r.ownerValues[node];
    const pttl = r.pttlMs[node];
    if (owner === undefined) effect.unknown.push(`${node} held no owner key`);
    else if (r.unanswered.includes(node)) effect.unknown.push(`${node} did not answer`);
    else if (r.valuesAfter[node] === owner) effect.untouched.push(node);
    else if (r.readsApartMs === undefined || pttl === undefined || pttl < 0 || r.readsApartMs >= pttl)
      effect.unknown.push(`${node}'s key may have expired (PTTL ${pttl} ms, dropped after ${r.readsApartMs} ms)`);
    else effect.acted.push(node);
  }
  return effect;
}

/** Committed: acted on at least one node and left untouched on none. */
export function committed(e: ServerEffect): boolean {
  return e.acted.length > 0 && e.untouched.length === 0;
}
