import { SERVER_VERSION_KEYS } from '../cluster/versions.ts';
import { readTest } from '../store/run-dir.ts';

/**
 * Which servers a night ran on, and their versions, from its runs' test records: a night on Valkey and one on Redis
 * must not be compared as if only the lock had changed (`--redis-server` shows in the settings only when given).
 */

/** Server → its versions over the runs, distinct and sorted, `, `-joined (`redis-server: 7.0.15`). */
export type NightServers = Record<string, string>;

/** Merged: every server any part ran, with every version it ran at. */
export function mergeServers(parts: readonly (NightServers | undefined)[]): NightServers {
  const seen = new Map<string, Set<string>>();
  for (const part of parts)
    for (const [server, versions] of Object.entries(part ?? {}))
      for (const v of versions.split(', ')) seen.set(server, (seen.get(server) ?? new Set()).add(v));
  return Object.fromEntries(
    [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, vs]) => [s, [...vs].sort().join(', ')]),
  );
}

/** The servers the runs in `runDirs` recorded; a run without a readable record adds nothing. */
export function nightServers(runDirs: readonly string[]): NightServers {
  return mergeServers(
    runDirs.filter(Boolean).map((dir) => {
      let versions: Record<string, string> = {};
      try {
        versions = readTest(dir, []).versions ?? {};
      } catch {
        // a run that left no record: it ran on no server we could name
      }
      return Object.fromEntries(Object.entries(versions).filter(([k]) => SERVER_VERSION_KEYS.includes(k)));
    }),
  );
}

/** `redis-server 7.0.15, etcd 3.4.23`; `unknown` for a night that recorded none (older ones). */
export function serversLine(servers: NightServers | undefined): string {
  const entries = Object.entries(servers ?? {});
  return entries.length ? entries.map(([s, v]) => `${s} ${v}`).join(', ') : 'unknown';
}

/**
 * How tonight's servers differ from the baseline's, one phrase per server (`valkey-server 8.0.1 tonight, not in the
 * baseline`); empty when they are the same or either night did not record them.
 */
export function serverChanges(tonight: NightServers | undefined, baseline: NightServers | undefined): string[] {
  if (!tonight || !baseline || !Object.keys(tonight).length || !Object.keys(baseline).length) return [];
  const out: string[] = [];
  for (const s of [...new Set([...Object.keys(baseline), ...Object.keys(tonight)])].sort()) {
    const [was, now] = [baseline[s], tonight[s]];
    if (was === now) continue;
    if (!was) out.push(`${s} ${now} tonight, not in the baseline`);
    else if (!now) out.push(`${s} ${was} in the baseline, not tonight`);
    else out.push(`${s} ${was} in the baseline, ${now} tonight`);
  }
  return out;
}
