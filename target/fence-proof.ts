import { randomBytes } from 'node:crypto';
import type { RemoteEtcd, RemoteRedis } from './remote-servers.ts';

/** One server's answer to the three probes outside the prefix. */
export interface FenceAnswer {
  readonly server: string;
  /** `fenced`: the server refused all three for the key; `open`: it did one; `unknown`: it did not say (down, a command refused). */
  readonly fence: 'fenced' | 'open' | 'unknown';
  readonly said: string;
}

/** What a run would do outside the prefix if it could: read a key, write it, delete it. */
export const PROBES = ['read', 'write', 'delete'] as const;
export type Probe = (typeof PROBES)[number];

/** A server's reply to one probe: it did it, or the error it gave. */
export type ProbeReply = { readonly done: true } | { readonly done: false; readonly error: string };

/**
 * How a reply counts. Only a refusal *for the key* proves the fence: Redis's `NOPERM … access … key` (an ACL key
 * pattern; 6.x/7.0 "no permissions to access one of the keys", 7.2 "No permissions to access a key"), etcd's
 * "permission denied" (its roles are key ranges). A Redis refusal of the *command* (`-get`: "no permissions to run
 * the 'get' command") says nothing about which keys the user may touch with other commands (audit R6).
 */
export type ProbeOutcome = 'done' | 'key-refused' | 'command-refused' | 'failed';

export function probeOutcome(kind: 'redis' | 'etcd', reply: ProbeReply): ProbeOutcome {
  if (reply.done) return 'done';
  const m = reply.error;
  if (kind === 'etcd') return /permission denied|PermissionDenied/i.test(m) ? 'key-refused' : 'failed';
  if (!/NOPERM/.test(m)) return 'failed';
  return /\bcommand\b/i.test(m) || !/\bkeys?\b/i.test(m) ? 'command-refused' : 'key-refused';
}

/** The commands each probe sends, as `target check` names them. */
export const PROBE_COMMANDS: Record<'redis' | 'etcd', Record<Probe, string>> = {
  redis: { read: 'GET', write: 'SET NX PX', delete: 'DEL' },
  etcd: { read: 'get', write: 'put', delete: 'delete' },
};

/** How long a write that got through lives on Redis, should its delete be refused. */
export const PROBE_TTL_MS = 5000;

/**
 * The verdict from a server's three replies (pure: tests give literal replies). Fenced only when each probe was
 * refused for the key; open when any was done (the user can touch keys outside the prefix); unknown otherwise.
 */
export function fenceVerdict(
  server: string,
  kind: 'redis' | 'etcd',
  key: string,
  prefix: string,
  replies: Readonly<Record<Probe, ProbeReply>>,
): FenceAnswer {
  const outcome = Object.fromEntries(PROBES.map((p) => [p, probeOutcome(kind, replies[p])])) as Record<
    Probe,
    ProbeOutcome
  >;
  const cmd = PROBE_COMMANDS[kind];
  const where = kind === 'redis' ? `${prefix}*` : prefix;
  const done = PROBES.filter((p) => outcome[p] === 'done');
  if (done.length) {
    const removed =
      outcome.write === 'done'
        ? outcome.delete === 'done'
          ? `; the probe's write was deleted again`
          : kind === 'redis'
            ? `; the probe's write expires by itself within ${PROBE_TTL_MS / 1000} s`
            : `; the probe's write could not be deleted: remove ${key}`
        : '';
    return {
      server,
      fence: 'open',
      said: `${done.map((p) => `${cmd[p]} ${key}`).join(', ')} ${done.length > 1 ? 'were' : 'was'} answered: this user can ${andList(done)} outside ${prefix}${removed}`,
    };
  }
  if (PROBES.every((p) => outcome[p] === 'key-refused'))
    return {
      server,
      fence: 'fenced',
      said: `${PROBES.map((p) => cmd[p]).join(', ')} outside ${where} → ${kind === 'redis' ? 'NOPERM' : 'permission denied'} (read, write and delete refused for the key)`,
    };
  const why = PROBES.filter((p) => outcome[p] !== 'key-refused').map((p) => {
    const r = replies[p] as { error: string };
    return outcome[p] === 'command-refused'
      ? `${cmd[p]} was refused as a command, which proves nothing about keys (${r.error})`
      : `${cmd[p]} failed without saying it was refused: ${r.error}`;
  });
  return { server, fence: 'unknown', said: why.join('; ') };
}

/** "read", "read and write", "read, write and delete". */
function andList(words: readonly string[]): string {
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : words.join('');
}

/** A key name outside the prefix that no one has: what the proof reads, writes and deletes. */
export function outsideKey(prefix: string): string {
  let key = `fencepost-fence-probe-${randomBytes(6).toString('hex')}`;
  while (key.startsWith(prefix)) key = `x${key}`;
  return key;
}

async function reply(p: Promise<unknown>): Promise<ProbeReply> {
  try {
    await p;
    return { done: true };
  } catch (err) {
    return { done: false, error: (err as Error).message };
  }
}

/**
 * Proves the credentials are fenced to the prefix by the servers themselves: what a run would do outside it must
 * each be refused for the key — a read, a write and a delete of a random key that cannot exist (Redis ACL
 * `~prefix*`: NOPERM; an etcd role with a prefix permission: "permission denied"). A read alone passes a user who
 * may not read but may write anywhere (`%R~fp-ci/* %W~*`, or `~* -get`). The write is `SET … NX PX 5000`: it can
 * never replace a key, and should it get through, the delete right after removes it (or it expires). A server that
 * does any of the three is `open`, and `target check` and the run say so loudly.
 */
export async function proveFence(
  prefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<FenceAnswer[]> {
  const key = outsideKey(prefix);
  const answers: FenceAnswer[] = [];
  for (const r of redis) {
    const replies = await r
      .withClient(async (c) => ({
        read: await reply(c.get(key)),
        write: await reply(c.set(key, 'fencepost fence probe', 'PX', PROBE_TTL_MS, 'NX')),
        delete: await reply(c.del(key)),
      }))
      .catch((err: Error) => {
        const failed: ProbeReply = { done: false, error: err.message };
        return { read: failed, write: failed, delete: failed };
      });
    answers.push(fenceVerdict(r.name, 'redis', key, prefix, replies));
  }
  if (etcd[0]) {
    const c = etcd[0].client();
    try {
      const replies = {
        read: await reply(c.get(key).string()),
        write: await reply(c.put(key).value('fencepost fence probe').exec()),
        delete: await reply(c.delete().key(key).exec()),
      };
      answers.push(fenceVerdict('etcd', 'etcd', key, prefix, replies));
    } finally {
      c.close();
    }
  }
  return answers;
}
