import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { ClusterNode, NodeKind } from './node.ts';

/** Client libraries whose behaviour is under test: their exact versions go into the run's test record. */
export const TRACKED_LIBRARIES = [
  'ioredis',
  'redlock',
  'etcd3',
  'node-zookeeper-client',
  'pg',
  'uplot',
  'vitest',
  'typescript',
] as const;

const NODE_MODULES = new URL('../node_modules/', import.meta.url);

/** Read from the installed package.json files (some packages, redlock among them, don't export theirs). */
export function libraryVersions(): Record<string, string> {
  const out: Record<string, string> = { node: process.version };
  for (const name of TRACKED_LIBRARIES) {
    try {
      out[name] = (
        JSON.parse(fs.readFileSync(new URL(`${name}/package.json`, NODE_MODULES), 'utf8')) as { version: string }
      ).version;
    } catch {
      out[name] = 'not installed';
    }
  }
  return out;
}

/** Server names as packages call them (so `pg` the library and `postgres` the server don't collide). */
const SERVER_NAME: Record<NodeKind, string> = { redis: 'redis-server', etcd: 'etcd', zk: 'zookeeper', pg: 'postgres' };

/** One version per server kind, from a real client call to each node (all nodes of a kind must agree). */
export async function serverVersions(nodes: readonly ClusterNode[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const n of nodes) {
    const v = await n.version();
    const key = SERVER_NAME[n.kind];
    out[key] = out[key] && out[key] !== v ? `${out[key]}, ${v}` : v;
  }
  return out;
}

/**
 * The installed version of each Debian package (dpkg's word), for what a run's lock library came from; a package dpkg
 * does not list as installed is "not installed", and a machine without dpkg says so.
 */
export function debianPackageVersions(packages: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(packages.map((p) => [p, 'not installed']));
  if (!packages.length) return out;
  let text = '';
  try {
    text = execFileSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev} ${Version}\\n', ...packages], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (err) {
    // Exit 1 when some package is unknown (the known ones are still printed); no dpkg at all: nothing printed.
    text = String((err as { stdout?: string }).stdout ?? '');
    if (!text && (err as NodeJS.ErrnoException).code === 'ENOENT')
      return Object.fromEntries(packages.map((p) => [p, 'unknown (no dpkg here)']));
  }
  for (const line of text.split('\n')) {
    const [name, status, version] = line.trim().split(/\s+/);
    if (name && status?.startsWith('ii') && version) out[name.replace(/:.*$/, '')] = version;
  }
  return out;
}
