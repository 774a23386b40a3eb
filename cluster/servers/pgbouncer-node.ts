import path from 'node:path';
import pg from 'pg';
import { ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';
import { writePgbouncerFiles, type PoolMode } from './pgbouncer-config.ts';

export interface PgbouncerNodeOptions extends ServerNodeOptions {
  /** The run's Postgres (127.0.0.1:<pgPort>), its bank database and role, whose per-run password it logs in with. */
  pgPort: number;
  database: string;
  user: string;
  password: string;
  poolMode: PoolMode;
  /** The run's acquire budget: lock_timeout on its server connections and its own query_wait_timeout. */
  waitTimeoutMs: number;
}

/**
 * Debian's pgbouncer in front of the run's Postgres, for a lock row that reaches Postgres through a pooler: one per
 * run, only when the row asks for it, its pool mode the row's. It listens on 127.0.0.1 only and checks the run's
 * role and password with SCRAM (its auth file is 0600 in its folder). Run as the `postgres` account when the harness
 * is root, as Debian's own service runs it (pgbouncer refuses root); a pid of the run like every server, so
 * `cleanup` finds it and nothing else.
 */
export class PgbouncerNode extends ServerNode {
  protected override readonly serverUser = 'postgres';
  private readonly bouncerOpts: PgbouncerNodeOptions;
  private ini = '';

  constructor(opts: PgbouncerNodeOptions) {
    super(opts);
    this.bouncerOpts = opts;
  }

  get poolMode(): PoolMode {
    return this.bouncerOpts.poolMode;
  }

  protected override async prepare(): Promise<void> {
    const o = this.bouncerOpts;
    this.ini = writePgbouncerFiles(this.home, {
      listenPort: this.port,
      pgPort: o.pgPort,
      database: o.database,
      user: o.user,
      password: o.password,
      poolMode: o.poolMode,
      waitTimeoutMs: o.waitTimeoutMs,
      authFile: path.join(this.home, 'userlist.txt'),
    });
  }

  protected command(): Command {
    // In the foreground (no -d): its pid is the one the harness records, its log is its stderr.
    return { file: 'pgbouncer', args: [this.ini], user: this.serverUser };
  }

  /** How the lock clients connect: the bank role and database, through pgbouncer's port. */
  connectionConfig(): pg.ClientConfig {
    const o = this.bouncerOpts;
    return {
      host: '127.0.0.1',
      port: this.port,
      user: o.user,
      password: o.password,
      database: o.database,
      connectionTimeoutMillis: 2000,
    };
  }

  private async query(sql: string, database: string): Promise<pg.QueryResult> {
    const c = new pg.Client({ ...this.connectionConfig(), database });
    c.on('error', () => {});
    try {
      await c.connect();
      // The simple protocol (no parameters): pgbouncer's console takes nothing else.
      return await c.query(sql);
    } finally {
      await c.end().catch(() => {});
    }
  }

  /** Ready when a statement goes all the way through it to Postgres and back. */
  protected async probe(): Promise<void> {
    await this.query('SELECT 1', this.bouncerOpts.database);
  }

  /** `SHOW VERSION` on its console (the run's role is a stats user): "PgBouncer 1.18.0" → "1.18.0". */
  async version(): Promise<string> {
    const v = String((await this.query('SHOW VERSION', 'pgbouncer')).rows[0]?.version ?? 'unknown');
    return v.replace(/^PgBouncer\s+/, '');
  }
}
