/**
 * The nftables text of a run's server partitions. Pure: literal data in, `nft -f` input out.
 *
 * Why this shape (checked on the 6.18 kernel of these machines, where `tc` qdiscs are missing): every server of
 * the run lives in a cgroup2 of its own, under one the run owns. Loopback packets pass the output hook once, with
 * the sending socket attached, so a rule can tell which member sent a packet (`socket cgroupv2`), and an accepted
 * socket inherits its listener's cgroup. The `members` chain marks each connection with the member that dialled it
 * (`ct mark`, set from the first packet of the original direction on), so the `grudge` chain can drop both
 * directions of a link between two sides: what the dialler sends to the other side's peer ports, and what comes
 * back from those ports on the dialler's connections. Client ports are never named: clients keep talking to every
 * member, on either side. Nothing is added to any address or route — only drops, in a table of our own.
 */

/** A server the table knows: its cgroup, the mark of the connections it dials, and the ports others dial to reach it. */
export interface NetMember {
  name: string;
  /** Its cgroup as `nft` resolves it: relative to /sys/fs/cgroup (`unified/fencepost-…/etcd0` on a hybrid host). */
  cgroupPath: string;
  /** Its depth below the cgroup2 root (`socket cgroupv2 level`). */
  level: number;
  /** The conntrack mark of connections it dials. */
  mark: number;
  /** Where the others reach it: etcd's peer port, ZooKeeper's quorum and election ports, a Redis primary's replication port. */
  ports: number[];
}

/** The chain whose rules are the current grudge: flushed to heal. */
export const GRUDGE_CHAIN = 'grudge';
const MEMBERS_CHAIN = 'members';

/** Marks of ours: a fixed high half, so a mark on a connection says which run's member dialled it only with the table. */
export const MARK_BASE = 0x0fe50000;

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
/** nft's string quoting: no quotes or backslashes inside (our names never have them; refuse rather than escape). */
function quoted(s: string): string {
  if (/["\\\n]/.test(s)) throw new Error(`nft string with a quote, backslash or newline: ${JSON.stringify(s)}`);
  return `"${s}"`;
}

/** nft keeps at most 128 bytes of a comment (NFT_USERDATA_MAXLEN), its terminating NUL included. */
export const NFT_COMMENT_MAX_BYTES = 127;
/** How a run's table comment starts (server-net.ts): the run dir follows. */
export const RUN_COMMENT = 'fencepost run ';

/**
 * A comment nft accepts: as given when it fits, else its head (`fencepost run `) and the tail of the rest after
 * an ellipsis — a deep results folder would otherwise fail the whole set-up. Informational only: the table's name,
 * not its comment, is what proves it ours.
 */
export function fitComment(comment: string): string {
  if (Buffer.byteLength(comment) <= NFT_COMMENT_MAX_BYTES) return comment;
  const cut = comment.startsWith(RUN_COMMENT) ? RUN_COMMENT.length : 0;
  const head = `${comment.slice(0, cut)}…`;
  let tail = comment.slice(cut);
  while (Buffer.byteLength(head + tail) > NFT_COMMENT_MAX_BYTES) tail = tail.slice(1);
  return head + tail;
}

/** The empty table of a run: both chains, no mark and no drop yet. `comment` says whose it is (the run dir). */
export function tableText(table: string, comment: string): string {
  return [
    `table inet ${table} {`,
    `  comment ${quoted(fitComment(comment))}`,
    // After conntrack (-200) has attached the connection, before the filter priority where the drops run.
    `  chain ${MEMBERS_CHAIN} { type filter hook output priority -150; policy accept; }`,
    `  chain ${GRUDGE_CHAIN} { type filter hook output priority 0; policy accept; }`,
    `}`,
    '',
  ].join('\n');
}

/** The rule that marks every connection `m` dials (added when its cgroup exists: nft resolves the path to an id). */
export function markRuleText(table: string, m: NetMember): string {
  return `add rule inet ${table} ${MEMBERS_CHAIN} socket cgroupv2 level ${m.level} ${quoted(m.cgroupPath)} ct direction original ct mark set ${hex(m.mark)} comment ${quoted(m.name)}\n`;
}

/** Comment of a drop rule: which member dialled, towards whom; fault evidence reads its counter by this. */
export function dropComment(dialler: string, listener: string, way: 'out' | 'back'): string {
  return way === 'out' ? `${dialler} -> ${listener}` : `${listener} -> ${dialler} (reply)`;
}

/**
 * Replace the grudge: flush the chain, then for every cut pair and each way it can be dialled, drop what the
 * dialler sends to the listener's ports and what the listener sends back on those connections.
 */
export function grudgeText(table: string, members: readonly NetMember[], cuts: readonly [string, string][]): string {
  const byName = new Map(members.map((m) => [m.name, m]));
  const lines = [`flush chain inet ${table} ${GRUDGE_CHAIN}`];
  for (const [a, b] of cuts) {
    for (const [dialler, listener] of [
      [a, b],
      [b, a],
    ]) {
      const d = byName.get(dialler);
      const l = byName.get(listener);
      if (!d || !l) throw new Error(`grudge names ${!d ? dialler : listener}, which is not a member of the table`);
      if (!l.ports.length) continue;
      const ports = `{ ${l.ports.join(', ')} }`;
      const rule = `add rule inet ${table} ${GRUDGE_CHAIN} ct mark ${hex(d.mark)}`;
      lines.push(
        `${rule} ct direction original tcp dport ${ports} counter drop comment ${quoted(dropComment(dialler, listener, 'out'))}`,
      );
      lines.push(
        `${rule} ct direction reply tcp sport ${ports} counter drop comment ${quoted(dropComment(dialler, listener, 'back'))}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Heal: every drop gone, the marks kept (connections made meanwhile stay attributable). */
export function healText(table: string): string {
  return `flush chain inet ${table} ${GRUDGE_CHAIN}\n`;
}

/** What one drop rule held, read back from `nft -j list chain …`. */
export interface DropCount {
  comment: string;
  packets: number;
  bytes: number;
}

/** The counters of the grudge chain's rules from `nft -j` output. Pure; unknown shapes are skipped. */
export function dropCounts(json: string): DropCount[] {
  const parsed = JSON.parse(json) as { nftables?: unknown[] };
  const out: DropCount[] = [];
  for (const item of parsed.nftables ?? []) {
    const rule = (item as { rule?: { chain?: string; comment?: string; expr?: unknown[] } }).rule;
    if (!rule || rule.chain !== GRUDGE_CHAIN) continue;
    const counter = (rule.expr ?? [])
      .map((e) => (e as { counter?: { packets?: number; bytes?: number } }).counter)
      .find((c) => c !== undefined);
    if (!counter) continue;
    out.push({ comment: rule.comment ?? '', packets: counter.packets ?? 0, bytes: counter.bytes ?? 0 });
  }
  return out;
}
