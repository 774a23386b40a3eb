import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { HarnessError } from '../../errors.ts';
import { ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';

export const PG_USER = 'fencepost';

export class PgNode extends ServerNode {
  /** Whom the data dir must belong to, as the host runs Postgres (undefined: the harness's own user). */
  private get account(): { uid: number; gid: number } | undefined {
    return this.host.account('postgres');
  }
  /** Where the data really lives when the run dir is private to root (a 0700 home or mkdtemp dir). */
  private outside: string | null = null;

  constructor(opts: ServerNodeOptions) {
    super(opts);
  }

  /**
   * When root runs the harness from a folder the postgres user can't enter (/root/…, a mkdtemp dir), the data
   * dir goes to a fresh folder under the OS temp dir and the run dir gets a symlink to it, so the layout stays
   * the same. `dispose` removes it.
   */
  private placeDataDir(): void {
    if (!this.account || this.outside || this.host.canEnter('postgres', this.dir)) return;
    this.outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-pg-'));
    this.host.ownDir?.(this.outside);
    fs.chmodSync(this.outside, 0o700);
    fs.chownSync(this.outside, this.account.uid, this.account.gid);
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    fs.symlinkSync(this.outside, this.dataDir);
    fs.writeFileSync(path.join(this.dir, 'DATA-IS-ELSEWHERE'), `${this.outside}\n`);
  }

  /** The data dir as Postgres must be given it: the real path, never through a link in a folder it can't enter. */
  private get pgData(): string {
    return this.outside ?? this.dataDir;
  }

  protected override stopSignal: NodeJS.Signals = 'SIGINT';

  /**
   * A SIGKILLed postmaster leaves its backends to die as orphans, and orphans become zombies that only pid 1
   * reaps (in a container, maybe never). Postgres's own fast shutdown ends and reaps them; SIGKILL stays the
   * fallback.
   */
  protected override async end(): Promise<void> {
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
      fs.chownSync(this.outside ?? this.dataDir, this.account.uid, this.account.gid);
    }
    if (fs.existsSync(`${this.pgData}/PG_VERSION`)) return;
    try {
      await this.runHelper(
        { file: this.bin('initdb'), args: ['-D', this.pgData, '-A', 'trust', '-U', PG_USER, '-E', 'UTF8', '--no-sync', '--no-instructions'], user: 'postgres' },
        this.workDir(),
      );
    } catch (err) {
      throw new HarnessError('node-start', `initdb for ${this.name} failed: ${(err as Error).message}`);
    }
  }

  protected command(): Command {
    return {
      file: this.bin('postgres'),
      args: [
        '-D', this.pgData,
        '-p', String(this.port),
        '-c', 'listen_addresses=127.0.0.1',
        // No unix socket: its path would have to fit in 107 bytes under an arbitrary run dir.
        '-c', 'unix_socket_directories=',
        // The resource's durability across an OS crash is not under test; its isolation is.
        '-c', 'fsync=off',
        '-c', 'full_page_writes=off',
        '-c', 'max_connections=200',
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
        if (cmd.startsWith('postgres:') && fs.readlinkSync(`/proc/${entry}/cwd`) === (this.outside ?? this.dataDir)) return true;
      } catch {
        // gone
      }
    }
    return false;
  }

  connectionConfig(): pg.ClientConfig {
    return { host: '127.0.0.1', port: this.port, user: PG_USER, database: 'postgres', connectionTimeoutMillis: 2000 };
  }

  private async query(sql: string): Promise<pg.QueryResult> {
    const c = new pg.Client(this.connectionConfig());
    c.on('error', () => {});
    try {
      await c.connect();
      return await c.query(sql);
    } finally {
      await c.end().catch(() => {});
    }
  }

  protected async probe(): Promise<void> {
    await this.query('SELECT 1');
  }

  async version(): Promise<string> {
    return String((await this.query('SHOW server_version')).rows[0].server_version).split(' ')[0];
  }
}
