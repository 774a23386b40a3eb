import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../cluster/cluster.ts';
import { createLocalCluster } from '../../cluster/local/cluster.ts';
import { PG_DATABASE, PG_ROLE, PG_SUPERUSER, SECRETS_FILE } from '../../cluster/credentials.ts';
import { PidRegistry } from '../../common/pid-registry.ts';
import { processesUnder, testResultsDir } from './processes.ts';

/**
 * A booted cluster refuses whoever lacks the run's passwords: what another local user of the machine would try.
 * And a whole run through the CLI leaves the passwords nowhere in its results but the 0600 secrets file.
 */
let dir: string;
let cluster: Cluster;

beforeAll(async () => {
  dir = testResultsDir('credentials');
  cluster = await createLocalCluster({ redis: 1, pg: true }, dir, new PidRegistry(path.join(dir, 'pids')));
  await cluster.start();
});

afterAll(async () => {
  await cluster?.teardown();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One raw RESP command, no AUTH: exactly what `redis-cli -p <port> ping` sends. */
function rawRedis(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.setTimeout(2000, () => sock.destroy(new Error('no reply in 2 s')));
    sock.on('connect', () => sock.write(`${line}\r\n`));
    sock.once('data', (d) => {
      sock.destroy();
      resolve(d.toString());
    });
    sock.on('error', reject);
  });
}

async function pgConnect(config: pg.ClientConfig): Promise<string> {
  const c = new pg.Client({ host: '127.0.0.1', port: cluster.pg!.port, connectionTimeoutMillis: 3000, ...config });
  c.on('error', () => {});
  try {
    await c.connect();
    return 'connected';
  } catch (err) {
    return (err as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
}

describe('a booted cluster', () => {
  it('keeps the passwords in a 0600 secrets file', () => {
    const st = fs.statSync(path.join(dir, SECRETS_FILE));
    expect((st.mode & 0o777).toString(8)).toBe('600');
    expect(cluster.credentials.redis).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses a Redis command without AUTH, and with a wrong password', async () => {
    const port = cluster.redis[0].port;
    expect(await rawRedis(port, 'PING')).toMatch(/^-NOAUTH/);
    expect(await rawRedis(port, 'CONFIG SET dir /tmp')).toMatch(/^-NOAUTH/);
    expect(await rawRedis(port, 'AUTH not-the-password')).toMatch(/^-WRONGPASS/);
    const r = cluster.redis[0].client();
    r.on('error', () => {});
    await r.connect();
    expect(await r.ping()).toBe('PONG');
    r.disconnect();
  });

  it('keeps the Redis password off the server command line', () => {
    for (const pid of cluster.redis[0].pids()) {
      expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(cluster.credentials.redis);
    }
  });

  it('refuses Postgres connections without the right password, as the superuser and as the bank role', async () => {
    for (const user of [PG_SUPERUSER, PG_ROLE]) {
      expect(await pgConnect({ user, database: 'postgres', password: 'wrong' })).toMatch(
        /password authentication failed/,
      );
      expect(await pgConnect({ user, database: PG_DATABASE, password: 'wrong' })).toMatch(
        /password authentication failed/,
      );
    }
    // The superuser's password is not the bank role's, and the bank role can't reach other databases.
    expect(
      await pgConnect({ user: PG_ROLE, database: PG_DATABASE, password: cluster.credentials.pgSuperuser }),
    ).toMatch(/password authentication failed/);
    expect(await pgConnect({ user: PG_ROLE, database: 'postgres', password: cluster.credentials.pg })).toMatch(
      /permission denied for database/,
    );
  });

  it('lets the bank role in, as a non-superuser owning the bank database', async () => {
    const c = new pg.Client(cluster.pg!.connectionConfig());
    await c.connect();
    try {
      const { rows } = await c.query(
        'SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user',
      );
      expect(rows).toEqual([{ rolsuper: false, rolcreaterole: false, rolcreatedb: false }]);
      const owner = await c.query(
        'SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = current_database()',
      );
      expect(owner.rows[0].owner).toBe(PG_ROLE);
      await expect(c.query(`COPY (SELECT 1) TO PROGRAM 'true'`)).rejects.toThrow(
        /permission denied|must be superuser|pg_execute_server_program/,
      );
    } finally {
      await c.end();
    }
  });
});

describe('a run', () => {
  const results = testResultsDir('credentials-run');
  afterAll(() => {
    for (const p of processesUnder(results)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    fs.rmSync(results, { recursive: true, force: true });
  });

  /** Every file under `root` whose bytes contain `needle`. */
  function filesContaining(root: string, needle: string): string[] {
    const hits: string[] = [];
    for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
      const file = path.join(entry.parentPath, entry.name);
      if (entry.isFile() && fs.readFileSync(file).includes(needle)) hits.push(path.relative(root, file));
    }
    return hits;
  }

  it('writes its passwords only into the 0600 secrets file, and deletes that once its servers are stopped', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'harness/cli.ts',
        '--lock=redlock',
        '--nemesis=restart-empty',
        '--time-limit=6',
        `--results=${results}`,
      ],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    );
    const code = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // The secrets exist only while the run does: read them then (the harness writes them before any server starts).
    let secretsFile: string | undefined;
    let secrets: Record<string, string> | undefined;
    for (let i = 0; i < 600 && !secrets; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const lockDir = path.join(results, 'redlock');
      const stamp = fs.existsSync(lockDir) ? fs.readdirSync(lockDir)[0] : undefined;
      secretsFile = stamp && path.join(lockDir, stamp, SECRETS_FILE);
      if (secretsFile && fs.existsSync(secretsFile) && fs.statSync(secretsFile).size > 0)
        secrets = JSON.parse(fs.readFileSync(secretsFile, 'utf8')) as Record<string, string>;
    }
    expect(secrets && Object.keys(secrets).sort()).toEqual(['pg', 'pgSuperuser', 'redis']);
    expect((fs.statSync(secretsFile!).mode & 0o777).toString(8)).toBe('600');
    expect([0, 1]).toContain(await code);
    const runDir = fs.realpathSync(path.join(results, 'latest'));
    // The run did use them: its history has committed writes.
    expect(fs.readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')).toMatch(/"type":"ok","f":"write"/);
    expect(fs.existsSync(path.join(runDir, SECRETS_FILE))).toBe(false);
    for (const password of Object.values(secrets!)) expect(filesContaining(results, password)).toEqual([]);
  });
});
