import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { PG_DATABASE, PG_ROLE, PG_SUPERUSER } from '../credentials.ts';
import { HarnessError } from '../../common/errors.ts';
import { noteDataElsewhere, ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';
import { scramVerifier } from './scram-verifier.ts';

export interface PgNodeOptions extends ServerNodeOptions {
  /** Password of the superuser, for creating the bank role and database only. */
  superuserPassword: string;
  /** Password of the bank role (PG_ROLE), which the harness and the clients use. */
  password: string;
}

/**
 * Postgres with password authentication (SCRAM) for every connection, TCP on 127.0.0.1 only: a superuser whose
 * password is set by initdb from a 0600 file, and a bank role that owns the bank database and nothing else.
 */
export class PgNode extends ServerNode {
  private readonly pgOpts: PgNodeOptions;
  /** Whom the data dir must belong to, as the host runs Postgres (undefined: the harness's own user). */
  private get account(): { uid: number; gid: number } | undefined {
    return this.host.account('postgres');
  }
  /** Where the data really lives: a memory folder, or the OS temp dir when the run dir is private to root. */
  private outside: string | null = null;

  constructor(opts: PgNodeOptions) {
    super(opts);
    this.pgOpts = opts;
  }

  /**
   * The data dir goes to `data/` in a fresh folder of ours outside the run dir, the run dir getting a symlink to it
   * (the layout stays the same; the folder also holds initdb's password file for a moment), when
   *   - the host has a memory folder (tmpfs, common/memory-dir.ts): the data is thrown away with the run and
   *     Postgres runs with fsync=off anyway, so memory only makes initdb and the boot ~0.9 s faster; or
   *   - root runs the harness from a folder the postgres user can't enter (/root/…, a mkdtemp dir): under the OS
   *     temp dir then.
   * Recorded as the run's (`ownDir`, DATA-IS-ELSEWHERE) so `cleanup` finds it after a kill -9; `dispose` removes it.
   */
  private placeDataDir(): void {
    if (this.outside) return;
    const memory = this.host.memoryDir?.() ?? null;
    if (!memory && (!this.account || this.host.canEnter('postgres', this.dir))) return;
    this.outside = fs.mkdtempSync(path.join(memory ?? os.tmpdir(), 'fencepost-pg-'));
    this.host.ownDir?.(this.outside);
    fs.chmodSync(this.outside, 0o700);
    if (this.account) fs.chownSync(this.outside, this.account.uid, this.account.gid);
    fs.mkdirSync(path.join(this.outside, 'data'), { mode: 0o700 });
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    fs.symlinkSync(path.join(this.outside, 'data'), this.dataDir);
    noteDataElsewhere(this.dir, this.outside);
  }

  /** The data dir as Postgres must be given it: the real path, never through a link in a folder it can't enter. */
  private get pgData(): string {
    return this.outside ? path.join(this.outside, 'data') : this.dataDir;
  }

  protected override stopSignal: NodeJS.Signals = 'SIGINT';

  /**
   * A SIGKILLed postmaster leaves its backends to die as orphans, and orphans become zombies that only pid 1
   * reaps (in a container, maybe never). Postgres's own fast shutdown ends and reaps them; SIGKILL stays the
   * fallback.
   */
  protected override async end(): Promise<void> {
    this.dropAdmin();
    await this.stop(3000);
  }

  protected override workDir(): string {
    return this.outside ?? this.dir;
  }

  override async dispose(): Promise<void> {
    if (this.outside) fs.rmSync(this.outside, { recursive: true, force: true });
    this.outside = null;
  }

  private bin(name: string): string {
    return `${this.host.postgresBinDir()}/${name}`;
  }

  protected override async prepare(): Promise<void> {
    this.placeDataDir();
    if (this.account) {
      fs.chownSync(this.dir, this.account.uid, this.account.gid);
      fs.chownSync(this.pgData, this.account.uid, this.account.gid);
      // Its clock record, so the shim in its backends can count the reads it served moved (the proof a clock-rate
      // shot reached them): read-only, they run uncounted.
      for (const f of this.opts.writable?.() ?? []) fs.chownSync(f, this.account.uid, this.account.gid);
    }
    if (fs.existsSync(`${this.pgData}/PG_VERSION`)) return;
    // initdb reads the superuser's password from a file (never argv): 0600, created so, owned by the user that
    // runs initdb, beside the data dir and removed as soon as initdb is done.
    const pwfile = path.join(this.workDir(), 'superuser.pw');
    fs.rmSync(pwfile, { force: true });
    fs.writeFileSync(pwfile, `${this.pgOpts.superuserPassword}\n`, { mode: 0o600, flag: 'wx' });
    try {
      if (this.account) fs.chownSync(pwfile, this.account.uid, this.account.gid);
      await this.runHelper(
        {
          file: this.bin('initdb'),
          args: [
            '-D',
            this.pgData,
            '--auth=scram-sha-256',
            '-U',
            PG_SUPERUSER,
            `--pwfile=${pwfile}`,
            '-E',
            'UTF8',
            '--no-sync',
            '--no-instructions',
          ],
          user: 'postgres',
        },
        this.workDir(),
      );
    } catch (err) {
      throw new HarnessError('node-start', `initdb for ${this.name} failed: ${(err as Error).message}`);
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
  }

  /** Creates the bank role and its database on the first start (a restart with data finds them there). */
  override async start(): Promise<void> {
    await super.start();
    const c = new pg.Client(this.superuserConfig());
    c.on('error', () => {});
    try {
      await c.connect();
      if (!(await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [PG_ROLE])).rowCount) {
        // A verifier, not the password: see scram-verifier.ts. Identifiers and the verifier are ours (no quoting issues).
        await c.query(
          `CREATE ROLE ${PG_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${scramVerifier(this.pgOpts.password)}'`,
        );
      }
      if (!(await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [PG_DATABASE])).rowCount) {
        await c.query(`CREATE DATABASE ${PG_DATABASE} OWNER ${PG_ROLE}`);
        // The role owns the bank database only: it can't even connect to the others.
        await c.query(`REVOKE CONNECT ON DATABASE postgres FROM PUBLIC`);
      }
    } catch (err) {
      await this.kill();
      throw new HarnessError(
        'node-start',
        `${this.name}: creating role ${PG_ROLE} and database ${PG_DATABASE} failed: ${(err as Error).message}`,
      );
    } finally {
      await c.end().catch(() => {});
    }
  }

  protected command(): Command {
    return {
      file: this.bin('postgres'),
      args: [
        '-D',
        this.pgData,
        '-p',
        String(this.port),
        '-c',
        'listen_addresses=127.0.0.1',
        // No unix socket: its path would have to fit in 107 bytes under an arbitrary run dir.
        '-c',
        'unix_socket_directories=',
        // The resource's durability across an OS crash is not under test; its isolation is.
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
        // Dynamic shared memory in the data dir (pg_dynshmem/), not /dev/shm/PostgreSQL.*: a killed postmaster (the
        // kill fault, a kill -9) can't remove its segments, and those in /dev/shm outlived the run (54 MB of them
        // on this project's CI machine by 2026-12-03). In the data dir they go with it.
        '-c',
        'dynamic_shared_memory_type=mmap',
      ],
      user: 'postgres',
    };
  }

  protected override async afterExit(): Promise<void> {
    // Backends outlive a SIGKILLed postmaster for a moment; wait so the port and data dir are free again.
    for (let i = 0; i < 100; i++) {
      if (!this.leftoverBackends()) return;
      await sleep(30);
    }
  }

  private leftoverBackends(): boolean {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (cmd.startsWith('postgres:') && fs.readlinkSync(`/proc/${entry}/cwd`) === this.pgData) return true;
      } catch {
        // gone
      }
    }
    return false;
  }

  /** How the harness and the clients connect: the bank role, with its password, to the bank database. */
  connectionConfig(): pg.ClientConfig {
    return {
      host: '127.0.0.1',
      port: this.port,
      user: PG_ROLE,
      password: this.pgOpts.password,
      database: PG_DATABASE,
      connectionTimeoutMillis: 2000,
    };
  }

  /** The superuser: for creating the role and database, and for probing before they exist. */
  private superuserConfig(): pg.ClientConfig {
    return {
      host: '127.0.0.1',
      port: this.port,
      user: PG_SUPERUSER,
      password: this.pgOpts.superuserPassword,
      database: 'postgres',
      connectionTimeoutMillis: 2000,
    };
  }

  private async query(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
    const c = new pg.Client(this.superuserConfig());
    c.on('error', () => {});
    try {
      await c.connect();
      return await c.query(sql, params);
    } finally {
      await c.end().catch(() => {});
    }
  }

  /**
   * A superuser session kept open for a fault that must act within a holder's think time (kill-session): opening one
   * costs a SCRAM exchange, tens of ms on a busy machine — longer than a 100 ms section has left. Dropped when it
   * errs (Postgres paused, killed) and when the node stops; the next use opens another.
   */
  private admin: Promise<pg.Client> | null = null;

  /** Open the kept superuser session now, so the first use does not pay for it. */
  warmAdmin(): void {
    if (this.admin) return;
    const c = new pg.Client(this.superuserConfig());
    c.on('error', () => this.dropAdmin());
    this.admin = c.connect().then(() => c);
    this.admin.catch(() => this.dropAdmin());
  }

  private dropAdmin(): void {
    const a = this.admin;
    this.admin = null;
    void a?.then((c) => c.end()).catch(() => {});
  }

  /**
   * End (pg_terminate_backend) the sessions named `applicationName` that hold a granted advisory lock: the lock
   * session of a client (workloads/lock-session-name.ts). Returns the backends' pids it ended; none when the client
   * holds no advisory lock in a session of that name.
   */
  async terminateAdvisoryLockSessions(applicationName: string): Promise<number[]> {
    this.warmAdmin();
    const c = await this.admin!;
    const r = await c.query(
      `SELECT a.pid, pg_terminate_backend(a.pid) AS ended
         FROM pg_stat_activity a
        WHERE a.application_name = $1
          AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted)`,
      [applicationName],
    );
    return r.rows.filter((row: { ended: boolean }) => row.ended).map((row: { pid: number }) => row.pid);
  }

  /**
   * The server's `clock_timestamp()` in µs since the epoch — the clock `now()` and every database-timed lease read —
   * over the kept superuser session, and the harness's time half-way through the read. Undefined when it did not
   * answer.
   */
  async clockSample(): Promise<{ us: number; atMs: number } | undefined> {
    if (!this.running || this.paused) return undefined;
    try {
      this.warmAdmin();
      const c = await this.admin!;
      const before = performance.now();
      const r = await c.query<{ us: string }>(
        'SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text AS us',
      );
      const after = performance.now();
      return { us: Number(r.rows[0].us), atMs: (before + after) / 2 };
    } catch {
      return undefined;
    }
  }

  /**
   * The advisory locks granted to the sessions named `applicationName` (a client's lock sessions), one row per lock
   * and one with nulls for a session that holds none (it is open): pg_locks' key columns as Postgres prints them
   * (classid and objid are oids: unsigned). Over the kept superuser session, so a fault reads within a round trip.
   */
  async advisoryLocksOf(applicationName: string): Promise<AdvisoryLockRow[]> {
    this.warmAdmin();
    const c = await this.admin!;
    const r = await c.query(
      `SELECT a.pid, l.classid::text AS classid, l.objid::text AS objid, l.objsubid
         FROM pg_stat_activity a
         LEFT JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
        WHERE a.application_name = $1`,
      [applicationName],
    );
    return r.rows as AdvisoryLockRow[];
  }

  protected async probe(): Promise<void> {
    await this.query('SELECT 1');
  }

  async version(): Promise<string> {
    return String((await this.query('SHOW server_version')).rows[0].server_version).split(' ')[0];
  }
}

/** One row of PgNode.advisoryLocksOf: a backend, and one advisory lock granted to it (nulls: it holds none). */
export interface AdvisoryLockRow {
  pid: number;
  classid: string | null;
  objid: string | null;
  objsubid: number | null;
}
