import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { HarnessError } from '../../errors.ts';
import { childPids } from '../../pid-registry.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProcessNode, type Command, type ProcessNodeOptions } from './process-node.ts';
import { postgresBinDir } from '../../provision.ts';

export const PG_USER = 'fencepost';

/** uid/gid of the `postgres` OS user: Postgres refuses to run as root, so the harness drops to it when root. */
function postgresAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) {
    throw new HarnessError('missing-dependency', 'running as root, but there is no `postgres` user to run Postgres as.', {
      hint: 'install the postgresql package (it creates the user): apt-get install -y postgresql',
    });
  }
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Whether every ancestor of `dir` lets other users through (o+x): the postgres user needs that. */
function traversableByOthers(dir: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) return false;
    if (d === path.dirname(d)) return true;
  }
}

export class PgNode extends ProcessNode {
  private readonly account = postgresAccount();
  /** Where the data really lives when the run dir is private to root (a 0700 home or mkdtemp dir). */
  private outside: string | null = null;

  constructor(opts: ProcessNodeOptions) {
    super(opts);
  }

  /**
   * When root runs the harness from a folder the postgres user can't enter (/root/…, a mkdtemp dir), the data
   * dir goes to a fresh folder under the OS temp dir and the run dir gets a symlink to it, so the layout stays
   * the same. `dispose` removes it.
   */
  private placeDataDir(): void {
    if (!this.account || this.outside || traversableByOthers(this.dir)) return;
    this.outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-pg-'));
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
    return `${postgresBinDir()}/${name}`;
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
        { file: this.bin('initdb'), args: ['-D', this.pgData, '-A', 'trust', '-U', PG_USER, '-E', 'UTF8', '--no-sync', '--no-instructions'], uid: this.account?.uid, gid: this.account?.gid },
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
      uid: this.account?.uid,
      gid: this.account?.gid,
    };
  }

  /** The postmaster and every backend: they call setsid(), so only the parent pid links them. */
  override pids(): number[] {
    const main = super.pids();
    return main.length ? [...main, ...childPids(main[0])] : [];
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
