import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { ownerAlive, readOwner } from '../common/run-owner.ts';
import { countKeys, listKeys, type CleanupPlan } from '../target/cleanup-plan.ts';
import { OWNED_KEYS_FILE, parseOwnedKeys, type OwnedKeys } from '../target/owned-keys.ts';
import { surveyPrefix } from '../target/owned-keys-store.ts';
import { removeNamedKeys } from '../target/prefix-keys.ts';
import { targetServers } from '../target/target-cluster.ts';
import { targetLogins } from '../target/target-credentials.ts';
import { readTargetFile } from '../target/target-file.ts';
import type { TargetSpec } from '../target/target-spec.ts';
import { readTestRaw, runPath } from '../store/run-dir.ts';

/**
 * The run folders under `resultsDir` that ran against this prefix: those whose harness still runs (their keys are
 * theirs, and a clean-up must not pull them away mid-run), and the records of the keys each one owns
 * (`target-keys.json`), which count with the prefix's own copies.
 */
function runFoldersOn(
  resultsDir: string,
  keyPrefix: string,
): { live: string[]; records: (OwnedKeys & { from: string })[] } {
  const live: string[] = [];
  const records: (OwnedKeys & { from: string })[] = [];
  for (const lock of entries(resultsDir)) {
    for (const run of entries(path.join(resultsDir, lock))) {
      const dir = path.join(resultsDir, lock, run);
      // A record of a newer format is refused (exit 254) rather than read as "not on this prefix": its run may be live.
      const test = readTestRaw(dir) as { target?: { keyPrefix?: string } } | undefined;
      if (test?.target?.keyPrefix !== keyPrefix) continue;
      try {
        const owner = readOwner(runPath(dir, 'pids'));
        if (owner && ownerAlive(owner)) live.push(dir);
      } catch {
        // not a run folder, or one without a record yet
      }
      try {
        const m = parseOwnedKeys(fs.readFileSync(path.join(dir, OWNED_KEYS_FILE), 'utf8'), keyPrefix);
        if (m) records.push({ ...m, from: dir });
      } catch {
        // a run of an older fencepost, or one refused before it recorded anything
      }
    }
  }
  return { live, records };
}

function entries(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The target file of `cleanup --target`, read and checked before anything else is done (254 when refused). */
export function readCleanupTarget(file: string): TargetSpec {
  return readTargetFile(file);
}

/**
 * `cleanup --target=<file>`: deletes the keys that runs of ours recorded (their namespace under the prefix, then
 * their record) once their harness is gone — a run killed with kill -9 left them, and the next run refuses to start
 * while any key is under the prefix. Every other key there is listed and left: it is not fencepost's unless the
 * operator says so with `--delete-unrecorded`, and then it is deleted only after its name has been printed. Never while a run of
 * ours on this machine still uses the prefix; a record's run that may still be going keeps its keys.
 */
export async function cleanupTarget(
  file: string,
  resultsDir: string,
  log: (line: string) => void,
  opts: { deleteUnrecorded?: boolean; spec?: TargetSpec } = {},
): Promise<number> {
  const spec = opts.spec ?? readTargetFile(file);
  const { live, records } = runFoldersOn(resultsDir, spec.keyPrefix);
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
  const plan = await surveyPrefix(spec.keyPrefix, servers.redis, servers.etcd, {
    deleteUnrecorded: opts.deleteUnrecorded,
    more: records,
  }).catch((err: Error) => {
    // Nothing is deleted on a partial view: a server that did not answer may hold the record that makes a key ours.
    throw new HarnessError(
      'bad-arguments',
      `target ${spec.name}: could not read the keys under ${spec.keyPrefix}: ${err.message}`,
      {
        hint: `check that the servers answer: fencepost target check ${spec.file}`,
      },
    );
  });
  say(spec, plan, opts.deleteUnrecorded ?? false, log);
  if (!countKeys(plan.remove)) return EXIT.valid;
  const { removed, failed } = await removeNamedKeys(spec.keyPrefix, plan.remove, servers.redis, servers.etcd);
  const total = Object.values(removed).reduce((a, b) => a + b, 0);
  const where = Object.entries(removed)
    .filter(([, n]) => n)
    .map(([s, n]) => `${n} on ${s}`)
    .join(', ');
  log(`target ${spec.name}: removed ${total} key(s) under ${spec.keyPrefix}${total ? ` (${where})` : ''}`);
  for (const [server, why] of Object.entries(failed)) log(`target ${spec.name}: could not clean ${server}: ${why}`);
  return Object.keys(failed).length ? EXIT.badArguments : EXIT.valid;
}

/** What the clean-up is about to do, and what it leaves, before it deletes anything. */
function say(spec: TargetSpec, plan: CleanupPlan, deleteUnrecorded: boolean, log: (line: string) => void): void {
  const t = `target ${spec.name}`;
  // A run folder's record whose run left nothing in the prefix (refused, or its end removed it all) is not news.
  const dead = plan.runs.filter((r) => !r.live && r.keys);
  const recorded = countKeys(plan.remove) - (deleteUnrecorded ? countKeys(plan.unrecorded) : 0);
  if (dead.length)
    log(
      `${t}: ${dead.length} run(s) of ours whose harness is gone recorded keys under ${spec.keyPrefix} (${dead.map((r) => r.id).join(', ')}): deleting their ${recorded} key(s) and record(s)`,
    );
  if (countKeys(plan.live))
    log(`${t}: leaving ${countKeys(plan.live)} key(s) of a run that may still be going: ${listKeys(plan.live)}`);
  const other = countKeys(plan.unrecorded);
  if (!other) return;
  if (!deleteUnrecorded) {
    log(
      `${t}: leaving ${other} key(s) under ${spec.keyPrefix} that no run of ours recorded: ${listKeys(plan.unrecorded)}`,
    );
    log(
      `${t}: they are not fencepost's unless you know otherwise; check them, and add --delete-unrecorded only to delete every one of them`,
    );
    return;
  }
  log(`${t}: --delete-unrecorded: also deleting ${other} key(s) under ${spec.keyPrefix} that no run of ours recorded:`);
  for (const [server, keys] of Object.entries(plan.unrecorded)) for (const k of keys) log(`  ${server} ${k}`);
}
