/** What the read needs of a ZooKeeper session (locks/zookeeper/zk-session.ts's ZkSession has it). */
export interface ChildReader {
  getChildren(path: string): Promise<string[]>;
  exists(path: string): Promise<{ ephemeralOwner: Uint8Array } | null>;
}

/** Children by name, each with its ephemeral owner: the session id in hex, `0` for a node that is not ephemeral. */
export type Owners = Record<string, string>;

/**
 * The children a create of `path` may have made: in its parent, named by its last part (a sequential node's name is
 * that and the number the server appended). Each with its `ephemeralOwner`; a child gone between the two reads is
 * left out.
 */
export async function ownChildren(session: ChildReader, path: string): Promise<Owners> {
  const { dir, base } = splitPath(path);
  const names = (await session.getChildren(dir)).filter((c) => c.startsWith(base)).sort();
  const stats = await Promise.all(names.map((n) => session.exists(`${dir}/${n}`)));
  const owners: Owners = {};
  names.forEach((n, i) => {
    const stat = stats[i];
    if (stat) owners[n] = ownerHex(stat.ephemeralOwner);
  });
  return owners;
}

/** `/a/b/c-lock-` → dir `/a/b`, base `c-lock-`. */
export function splitPath(path: string): { dir: string; base: string } {
  const slash = path.lastIndexOf('/');
  return { dir: slash > 0 ? path.slice(0, slash) : '/', base: path.slice(slash + 1) };
}

/** A session id as ZooKeeper's own tools print it: hex without leading zeros; `0` is no session (a persistent node). */
export function ownerHex(id: Uint8Array): string {
  const hex = Array.from(id, (b) => b.toString(16).padStart(2, '0')).join('');
  return hex.replace(/^0+/, '') || '0';
}
