import { randomBytes } from 'node:crypto';
import type { RemoteEtcd, RemoteRedis } from './remote-servers.ts';

/** One server's answer to a read outside the prefix. */
export interface FenceAnswer {
  readonly server: string;
  /** `fenced`: the server refused the read; `open`: it answered it; `unknown`: it did not say (down, timed out). */
  readonly fence: 'fenced' | 'open' | 'unknown';
  readonly said: string;
}

/** A key name outside the prefix that no one has: what the proof reads (and never writes). */
export function outsideKey(prefix: string): string {
  let key = `fencepost-fence-probe-${randomBytes(6).toString('hex')}`;
  while (key.startsWith(prefix)) key = `x${key}`;
  return key;
}

/**
 * Proves the credentials are fenced to the prefix by the servers themselves: a read of a key outside it must be
 * refused (Redis ACL `~prefix*`: NOPERM; etcd role with a prefix permission: "permission denied"). A read, never a
 * write: if the fence is open, the proof must not have touched anything. A server that answers the read is `open`,
 * and `target check` and the run say so loudly.
 */
export async function proveFence(
  prefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<FenceAnswer[]> {
  const key = outsideKey(prefix);
  const answers: FenceAnswer[] = [];
  for (const r of redis) {
    try {
      await r.withClient((c) => c.get(key));
      answers.push({
        server: r.name,
        fence: 'open',
        said: `GET ${key} was answered: this user can read outside ${prefix}`,
      });
    } catch (err) {
      const m = (err as Error).message;
      answers.push(
        /NOPERM/.test(m)
          ? { server: r.name, fence: 'fenced', said: `GET outside ${prefix}* → NOPERM` }
          : { server: r.name, fence: 'unknown', said: `GET ${key} failed without saying it was refused: ${m}` },
      );
    }
  }
  if (etcd[0]) {
    const c = etcd[0].client();
    try {
      await c.get(key).string();
      answers.push({
        server: 'etcd',
        fence: 'open',
        said: `get ${key} was answered: this user can read outside ${prefix}`,
      });
    } catch (err) {
      const m = (err as Error).message;
      answers.push(
        /permission denied|PermissionDenied/i.test(m)
          ? { server: 'etcd', fence: 'fenced', said: `get outside ${prefix} → permission denied` }
          : { server: 'etcd', fence: 'unknown', said: `get ${key} failed without saying it was refused: ${m}` },
      );
    } finally {
      c.close();
    }
  }
  return answers;
}
