import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClusterNode, NodeKind } from './node.ts';

/**
 * Client libraries whose behaviour is under test (and the report's chart library): their exact versions go into the
 * run's test record. Dependencies of the package only — a dev tool (vitest, typescript) is absent from an installed
 * copy and tests nothing a run measures.
 */
export const TRACKED_LIBRARIES = ['ioredis', 'redlock', 'etcd3', 'node-zookeeper-client', 'pg', 'uplot'] as const;

/**
 * `<dir>/node_modules/<name>/package.json` for this file's folder and every folder above it: Node's own lookup for
 * a bare import. An installed fencepost (`<project>/node_modules/fencepost/`) finds its dependencies hoisted to
 * `<project>/node_modules/`, a clone finds them in its own; reading only `../node_modules/` made every installed
 * copy report "not installed". Not `require.resolve('<name>/package.json')`: redlock's `exports` hides its
 * package.json (ERR_PACKAGE_PATH_NOT_EXPORTED).
 */
export function packageJsonOf(
  name: string,
  from: string = path.dirname(fileURLToPath(import.meta.url)),
): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** Read from the installed package.json files, found as a bare import of this package would find them. */
export function libraryVersions(from?: string): Record<string, string> {
  const out: Record<string, string> = { node: process.version };
  for (const name of TRACKED_LIBRARIES) {
    const file = packageJsonOf(name, from);
    try {
      out[name] = file ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version : 'not installed';
    } catch {
      out[name] = 'not installed';
    }
  }
  return out;
}

/** Server names as packages call them (so `pg` the library and `postgres` the server don't collide). */
const SERVER_NAME: Record<NodeKind, string> = {
  redis: 'redis-server',
  etcd: 'etcd',
  zk: 'zookeeper',
  pg: 'postgres',
  pgbouncer: 'pgbouncer',
  dynamodb: 'dynalite',
};

/** Every key a server's version is recorded under in a test record (the rest are client libraries and node). */
export const SERVER_VERSION_KEYS: readonly string[] = [...Object.values(SERVER_NAME), 'valkey-server'];

/** One version per server kind, from a real client call to each node (all nodes of a kind must agree). */
export async function serverVersions(nodes: readonly ClusterNode[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const n of nodes) {
    const v = await n.version();
    const key = n.server ?? SERVER_NAME[n.kind];
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
