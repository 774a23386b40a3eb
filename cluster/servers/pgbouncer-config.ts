import fs from 'node:fs';
import path from 'node:path';

/**
 * pgbouncer's two files for one run, written by the harness: `pgbouncer.ini` and the auth file its `auth_file` names.
 * Pure text from the facts below, then written 0600 into the node's own folder. What each setting is for is said
 * beside it; the keys are pgbouncer 1.18's (Debian bookworm), from its docs' "Configuration" page.
 */

/** `pool_mode`: `session` keeps a server connection for a client's whole connection, `transaction` for one transaction. */
export type PoolMode = 'session' | 'transaction';

/**
 * Server connections per (database, user) pair. Two, fewer than a run's clients, so that their statements must share
 * backends; two rather than one, so that a lock call and its unlock can land on *different* backends (a stranded
 * lock): with one, every statement runs on the same backend and only the re-entrant double grant could show.
 */
export const PGBOUNCER_POOL_SIZE = 2;

export interface PgbouncerSetup {
  /** Where pgbouncer listens: 127.0.0.1:<this>. */
  listenPort: number;
  /** The run's Postgres, which pgbouncer connects to on 127.0.0.1. */
  pgPort: number;
  /** The one database it serves, under the same name as in Postgres. */
  database: string;
  /** The role the clients log in as (to pgbouncer, and through it to Postgres). */
  user: string;
  /** That role's per-run password: in the auth file only, never in the ini or on argv. */
  password: string;
  poolMode: PoolMode;
  /**
   * How long a statement may wait for a lock in Postgres (`lock_timeout`, set on every server connection by
   * `connect_query`), and, rounded up to seconds, for a free server connection in pgbouncer (`query_wait_timeout`):
   * the harness's acquire budget, so a waiter gives up instead of holding a backend forever. pgbouncer 1.18 refuses a
   * client's own `options=-c lock_timeout=…` startup parameter, so it cannot come from the client.
   */
  waitTimeoutMs: number;
  /** Absolute path of the auth file (in the node's folder). */
  authFile: string;
}

/** A value as pgbouncer's auth file quotes it: in double quotes, a `"` doubled. */
const quoted = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * The auth file: `"user" "password"`. The password in clear, because pgbouncer must log into Postgres with it
 * (SCRAM towards the server needs the password or the client's own SCRAM keys); it checks clients with SCRAM too.
 */
export function authFileText(s: Pick<PgbouncerSetup, 'user' | 'password'>): string {
  return `${quoted(s.user)} ${quoted(s.password)}\n`;
}

export function pgbouncerIni(s: PgbouncerSetup): string {
  const target = [
    'host=127.0.0.1',
    `port=${s.pgPort}`,
    `dbname=${s.database}`,
    `connect_query='SET lock_timeout = ${Math.max(1, Math.round(s.waitTimeoutMs))}'`,
  ].join(' ');
  return [
    '[databases]',
    `${s.database} = ${target}`,
    '',
    '[pgbouncer]',
    // Loopback only, like every server of a run; no unix socket (its default is /tmp, shared by every local user).
    'listen_addr = 127.0.0.1',
    `listen_port = ${s.listenPort}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${s.authFile}`,
    // SHOW commands on the `pgbouncer` console for the run's role (its version, its pools); not admin.
    `stats_users = ${s.user}`,
    `pool_mode = ${s.poolMode}`,
    `default_pool_size = ${PGBOUNCER_POOL_SIZE}`,
    'min_pool_size = 0',
    'reserve_pool_size = 0',
    // Session mode's default, written down because the session row leans on it: DISCARD ALL when a client leaves
    // ends every advisory lock its session still held, before the server connection serves anyone else.
    'server_reset_query = DISCARD ALL',
    `query_wait_timeout = ${Math.max(1, Math.ceil(s.waitTimeoutMs / 1000))}`,
    // After a failed login to Postgres it waits this long before the next (default 15 s). It starts beside Postgres,
    // which is not ready yet: with the default its first ready probe came after 15.4 s, with this after ~1 s.
    'server_login_retry = 0.2',
    // Logs to stderr, which the harness sends to the run's logs folder; no pidfile (the harness knows the pid).
    'logfile =',
    'pidfile =',
    '',
  ].join('\n');
}

/**
 * Both files into `dir`, each created 0600 (never chmodded after: there would be a moment it is readable), replacing
 * what an earlier start of the same node wrote. Returns the ini's path, pgbouncer's one argument.
 */
export function writePgbouncerFiles(dir: string, s: PgbouncerSetup): string {
  const ini = path.join(dir, 'pgbouncer.ini');
  for (const [file, text] of [
    [s.authFile, authFileText(s)],
    [ini, pgbouncerIni(s)],
  ] as const) {
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  }
  return ini;
}
