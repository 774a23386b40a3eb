import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { ownerAlive, readOwner } from '../common/run-owner.ts';
import { removeKeysUnderPrefix } from '../target/prefix-keys.ts';
import { targetServers } from '../target/target-cluster.ts';
import { targetLogins } from '../target/target-credentials.ts';
import { readTargetFile } from '../target/target-file.ts';
import { readTestRaw, runPath } from '../store/run-dir.ts';

/**
 * The run folders under `resultsDir` whose harness still runs against this prefix: their keys are theirs, and a
 * clean-up must not pull them away mid-run.
 */
function liveRunsOn(resultsDir: string, keyPrefix: string): string[] {
  const live: string[] = [];
  let locks: string[] = [];
  try {
    locks = fs.readdirSync(resultsDir);
  } catch {
    return [];
  }
  for (const lock of locks) {
    let runs: string[] = [];
    try {
      runs = fs.readdirSync(path.join(resultsDir, lock));
    } catch {
      continue;
    }
    for (const run of runs) {
      const dir = path.join(resultsDir, lock, run);
      // A record of a newer format is refused (exit 254) rather than read as "not on this prefix": its run may be live.
      const test = readTestRaw(dir) as { target?: { keyPrefix?: string } } | undefined;
      try {
        const owner = readOwner(runPath(dir, 'pids'));
        if (test?.target?.keyPrefix === keyPrefix && owner && ownerAlive(owner)) live.push(dir);
      } catch {
        // not a run folder, or one without a record yet
      }
    }
  }
  return live;
}

/**
 * `cleanup --target=<file>`: removes every key under the target's prefix (a run killed with kill -9 left them; its
 * locks' leases expire anyway, but the next run refuses to start while any is there). Only when no run of ours that
 * is still going uses the prefix; and only keys under it, each name checked against it before it is deleted.
 */
export async function cleanupTarget(file: string, resultsDir: string, log: (line: string) => void): Promise<number> {
  const spec = readTargetFile(file);
  const live = liveRunsOn(resultsDir, spec.keyPrefix);
  if (live.length)
    throw new HarnessError(
      'bad-arguments',
      `a run still uses ${spec.keyPrefix} on target ${spec.name}: ${live.join(', ')}`,
      {
        hint: 'wait for it to end (its own teardown removes its keys), or stop it with Ctrl-C',
      },
    );
  const servers = targetServers(
    spec,
    { redis: spec.redis?.endpoints.length ?? 0, etcd: spec.etcd?.endpoints.length ?? 0, zk: 0 },
    targetLogins(spec),
    { adapters: {}, guard: null, boundMs: { pause: 0, kill: 0 } },
  );
  const { removed, failed } = await removeKeysUnderPrefix(spec.keyPrefix, servers.redis, servers.etcd);
  const total = Object.values(removed).reduce((a, b) => a + b, 0);
  log(
    `target ${spec.name}: removed ${total} key(s) under ${spec.keyPrefix}${
      total
        ? ` (${Object.entries(removed)
            .filter(([, n]) => n)
            .map(([s, n]) => `${n} on ${s}`)
            .join(', ')})`
        : ''
    }`,
  );
  for (const [server, why] of Object.entries(failed)) log(`target ${spec.name}: could not clean ${server}: ${why}`);
  return Object.keys(failed).length ? EXIT.badArguments : EXIT.valid;
}
