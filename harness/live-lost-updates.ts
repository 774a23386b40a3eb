/**
 * Lost updates seen while the run goes, from the clients' committed writes alone (the final read is not there yet).
 *
 * Each `ok` write carries its ledger id (`writeId`, increasing with commit order) and the id of the write its read
 * saw (`basedOn`). A committed write W that is based on B while another committed write L has B < L < W did not see
 * L: then L or W is lost — the final balance is one chain back to 0 through `basedOn`, with ids increasing along
 * it, and W's predecessor B leaves no room for L between them on it. So the first such pair proves the run has a
 * lost update, whatever the clients' completions' arrival order (a completion may arrive after a later one's); the
 * lost-updates checker (checkers/lost-updates.ts) still decides, and names them, from the ledger after the run.
 *
 * `count` is the progress line's "lost updates so far", by the checker's own rule (checkers/lost-updates.ts): the
 * writes seen so far that are off the chain from the newest one back through `basedOn`. It counted the writes that
 * missed another instead ("anomalies so far 11" against the summary's "lost updates: 8"). A chain that reaches a
 * base not seen here (an `info` write that landed) stops there, and nothing below it is counted: a lower bound.
 */
export class LiveLostUpdates {
  /** Per account: committed ids in increasing order, and each one's base. */
  private readonly accounts = new Map<number, { ids: number[]; basedOn: Map<number, number> }>();
  /** The first committed write seen not to have seen an earlier one, with the one it missed. */
  first: { account: number; writeId: number; missed: number } | null = null;

  get count(): number {
    let lost = 0;
    for (const a of this.accounts.values()) lost += offChain(a.ids, a.basedOn);
    return lost;
  }

  /** One committed write. Returns true when it shows the run's first lost update. */
  committed(account: number, writeId: number, basedOn: number): boolean {
    let a = this.accounts.get(account);
    if (!a) this.accounts.set(account, (a = { ids: [], basedOn: new Map() }));
    if (a.basedOn.has(writeId)) return false;
    const at = insertionPoint(a.ids, writeId);
    a.ids.splice(at, 0, writeId);
    a.basedOn.set(writeId, basedOn);
    const before = this.first;
    // This write missed one committed between its base and itself: the nearest id above its base.
    const next = a.ids[insertionPoint(a.ids, basedOn + 1)];
    if (next !== undefined && next < writeId) this.mark(account, writeId, next);
    // A later write already seen (its completion arrived first) that was based below this one missed it.
    for (let i = at + 1; i < a.ids.length; i++) {
      const later = a.ids[i];
      if (a.basedOn.get(later)! < writeId) this.mark(account, later, writeId);
    }
    return before === null && this.first !== null;
  }

  private mark(account: number, writeId: number, missed: number): void {
    this.first ??= { account, writeId, missed };
  }
}

/** The first index whose id is ≥ `id` (ids sorted ascending). */
function insertionPoint(ids: readonly number[], id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Committed ids off the chain from the newest back through `basedOn` (to 0, the opening balance): lost so far. */
function offChain(ids: readonly number[], basedOn: ReadonlyMap<number, number>): number {
  if (!ids.length) return 0;
  const chain = new Set<number>();
  let id = ids[ids.length - 1];
  let floor = 0;
  for (;;) {
    chain.add(id);
    const base = basedOn.get(id)!;
    if (base === 0 || !basedOn.has(base) || base >= id) {
      floor = base >= id ? id : base;
      break;
    }
    id = base;
  }
  return ids.filter((i) => i > floor && !chain.has(i)).length;
}
