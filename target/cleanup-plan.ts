import { idOfManifestKey, manifestKey, ownerMayLive, type OwnedKeys } from './owned-keys.ts';

/** Server name → key names. */
export type KeysOn = Readonly<Record<string, readonly string[]>>;

/** What `cleanup --target` does with each key under the prefix. */
export interface CleanupPlan {
  /** Keys of runs whose harness is gone (their namespace, then their record last): deleted. */
  readonly remove: KeysOn;
  /** Keys of runs that may still be going: left, whatever else is asked. */
  readonly live: KeysOn;
  /** Keys under the prefix that no record names: listed and left, deleted only with `--delete-unrecorded`. */
  readonly unrecorded: KeysOn;
  /** The records' runs, dead or live, with how many keys of theirs (their record included) are there now. */
  readonly runs: readonly { id: string; live: boolean; from: string; keys: number }[];
}

/**
 * Sorts the keys found under the prefix (per server) by the records of the runs that made them (pure: tests give
 * literal data). A key is a run's when it lies in the run's namespace or is its record; a dead run's keys are
 * removed (its record after them, so an interrupted cleanup can be run again), a live one's are left, and any other
 * key is not fencepost's to delete unless `deleteUnrecorded` — then it joins `remove` too, after the list has been shown.
 */
export function planCleanup(
  keyPrefix: string,
  records: readonly (OwnedKeys & { from: string })[],
  found: KeysOn,
  here: { host: string; now: number; alive: (pid: number, pidStart: number) => boolean },
  deleteUnrecorded = false,
): CleanupPlan {
  const byId = new Map<string, { record: OwnedKeys & { from: string }; live: boolean }>();
  for (const r of records)
    if (!byId.has(r.id) && r.keyPrefix === keyPrefix) byId.set(r.id, { record: r, live: ownerMayLive(r, here) });
  const owner = (key: string) => {
    const id =
      idOfManifestKey(key, keyPrefix) ?? [...byId.keys()].find((i) => key.startsWith(byId.get(i)!.record.namespace));
    return id !== undefined ? byId.get(id) : undefined;
  };
  const remove: Record<string, string[]> = {};
  const live: Record<string, string[]> = {};
  const unrecorded: Record<string, string[]> = {};
  const add = (to: Record<string, string[]>, server: string, key: string) => (to[server] ??= []).push(key);
  const counts = new Map<string, number>();
  for (const [server, keys] of Object.entries(found)) {
    const sorted = [...keys].sort();
    for (const key of sorted) {
      const run = owner(key);
      if (run) counts.set(run.record.id, (counts.get(run.record.id) ?? 0) + 1);
      if (run?.live) add(live, server, key);
      else if (run) add(remove, server, key);
      else add(unrecorded, server, key);
    }
    if (deleteUnrecorded) for (const key of unrecorded[server] ?? []) add(remove, server, key);
    // A record goes last, so a cleanup cut short finds it again next time.
    const records = new Set([...byId.values()].map((r) => manifestKey(keyPrefix, r.record.id)));
    if (remove[server])
      remove[server] = [
        ...remove[server].filter((k) => !records.has(k)),
        ...remove[server].filter((k) => records.has(k)),
      ];
  }
  const runs = [...byId.values()].map((r) => ({
    id: r.record.id,
    live: r.live,
    from: r.record.from,
    keys: counts.get(r.record.id) ?? 0,
  }));
  return { remove, live, unrecorded, runs };
}

/** How many keys, over all servers. */
export function countKeys(on: KeysOn): number {
  return Object.values(on).reduce((n, k) => n + k.length, 0);
}

/** "3 on r0 (a, b, c); 1 on etcd (d)", with at most `shown` names per server. */
export function listKeys(on: KeysOn, shown = 5): string {
  return Object.entries(on)
    .filter(([, k]) => k.length)
    .map(([s, k]) => `${k.length} on ${s} (${k.slice(0, shown).join(', ')}${k.length > shown ? ', …' : ''})`)
    .join('; ');
}

/**
 * What `cleanup --target` will and will not touch, said to whoever meets keys under the prefix (a refused run,
 * `target check`): never "it removes them", since most keys there may be someone else's.
 */
export function cleanupWouldDo(plan: CleanupPlan, file: string, cli: string): string {
  const dead = countKeys(plan.remove);
  const parts = [
    dead
      ? `\`${cli} cleanup --target=${file}\` deletes the ${dead} key(s) that runs of ours recorded and whose harness is gone`
      : `no key there was recorded by a run of ours that is gone, so \`${cli} cleanup --target=${file}\` deletes nothing`,
  ];
  if (countKeys(plan.live)) parts.push(`${countKeys(plan.live)} belong to a run that may still be going: wait for it`);
  if (countKeys(plan.unrecorded))
    parts.push(
      `${countKeys(plan.unrecorded)} no run of ours recorded (${listKeys(plan.unrecorded, 3)}): they are not fencepost's unless you know otherwise — check them; cleanup lists them and leaves them (it deletes them only with --delete-unrecorded)`,
    );
  return parts.join('; ');
}
