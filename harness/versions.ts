import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Client libraries whose behaviour is under test: their exact versions go into test.json. */
export const TRACKED_LIBRARIES = ['ioredis', 'redlock', 'etcd3', 'node-zookeeper-client', 'pg', 'uplot', 'vitest', 'typescript'] as const;

export function libraryVersions(): Record<string, string> {
  const out: Record<string, string> = { node: process.version };
  for (const name of TRACKED_LIBRARIES) {
    try {
      out[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      out[name] = 'not installed';
    }
  }
  return out;
}
