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
