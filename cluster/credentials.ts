import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';

/** The run's secrets file, relative to its run dir. Nothing else in the run dir holds a password. */
export const SECRETS_FILE = 'secrets.json';

/** The bank role of Postgres (not a superuser): it owns the bank database and nothing else. */
export const PG_ROLE = 'fencepost';
export const PG_DATABASE = 'bank';
/** The Postgres superuser, used only to create the role and the database. */
export const PG_SUPERUSER = 'postgres';
/**
 * etcd's admin user: etcd will only `auth enable` once a user named root holds the root role. The harness uses it
 * for set-up, readiness probes and the faults' leader lookups; the lock clients never get it.
 */
export const ETCD_ROOT = 'root';
/** The etcd user (and role of the same name) of the lock clients: read and write under `fencepost/` only. */
export const ETCD_USER = 'fencepost';
/** The ZooKeeper digest user whose ACL every lock node and lock parent carries. */
export const ZK_USER = 'fencepost';

/**
 * A run's passwords. Why per run and random: the servers listen on 127.0.0.1, where every local user can reach
 * them; an unauthenticated Redis lets anyone `CONFIG SET dir` + `SAVE` a file as the server's user, and a
 * `trust` Postgres hands out a superuser (COPY … TO PROGRAM), and an etcd without auth or a ZooKeeper without ACLs
 * lets anyone hold or delete the lock key in the middle of a run (a false VALID or INVALID). Hex only, so every config syntax takes them as is.
 */
export interface Credentials {
  /** Redis `requirepass` (and `masterauth`: the failover pair's replica authenticates to its primary). */
  redis: string;
  /** Postgres superuser (`postgres`). */
  pgSuperuser: string;
  /** Postgres bank role (`fencepost`). */
  pg: string;
  /** etcd `root` (the admin user; see ETCD_ROOT). */
  etcdRoot: string;
  /** etcd `fencepost` (the lock clients' user). */
  etcd: string;
  /** ZooKeeper digest `fencepost:<this>`. */
  zk: string;
  /**
   * DynamoDB (dynalite) access key id and secret. The key id is what its guard checks (dynalite checks no signature:
   * cluster/servers/dynalite-guard.ts); absent from a secrets file written before DynamoDB rows existed.
   */
  dynamodbKeyId: string;
  dynamodbSecret: string;
}

function secret(): string {
  return crypto.randomBytes(16).toString('hex');
}

/**
 * The credentials of the run in `runDir`: generated on the first call and written to `<runDir>/secrets.json`,
 * created with mode 0600 (never a chmod after: there would be a moment it is readable); later calls for the same
 * run dir read that file back. The one place passwords come from.
 */
export function runCredentials(runDir: string): Credentials {
  const file = path.join(runDir, SECRETS_FILE);
  const fresh: Credentials = {
    redis: secret(),
    pgSuperuser: secret(),
    pg: secret(),
    etcdRoot: secret(),
    etcd: secret(),
    zk: secret(),
    // AWS's shape: 20 upper-case characters, AKIA… (aws-sdk sends it as is; the guard compares it).
    dynamodbKeyId: `AKIA${crypto.randomBytes(8).toString('hex').toUpperCase()}`,
    dynamodbSecret: secret(),
  };
  fs.mkdirSync(runDir, { recursive: true });
  try {
    fs.writeFileSync(file, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return fresh;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = fs.lstatSync(file);
  if (!st.isFile() || (st.mode & 0o077) !== 0 || st.uid !== process.getuid?.()) {
    throw new HarnessError(
      'run-dir',
      `${file} exists but is not a private file of ours (mode ${(st.mode & 0o777).toString(8)}, owner uid ${st.uid}): refusing to use its passwords.`,
      { hint: 'use a fresh --results folder, or remove that file' },
    );
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Credentials;
}

/**
 * Deletes the run's secrets file once its servers are stopped: the passwords open nothing after that, and a file
 * left behind is one more thing that `serve`, an artifact upload or a backup could hand out.
 */
export function removeSecrets(runDir: string): void {
  fs.rmSync(path.join(runDir, SECRETS_FILE), { force: true });
}
