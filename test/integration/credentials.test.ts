import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../cluster/cluster.ts';
import { createLocalCluster } from '../../cluster/local/cluster.ts';
import { PG_DATABASE, PG_ROLE, PG_SUPERUSER, SECRETS_FILE } from '../../cluster/credentials.ts';
import { PidRegistry } from '../../common/pid-registry.ts';
import type { LockClient, LockContext } from '../../locks/strategy.ts';
import etcdStrategy, { lockKeyFor } from '../../locks/etcd/etcd.ts';
import zkStrategy, { lockDirFor } from '../../locks/zookeeper/zookeeper.ts';
import { processesUnder, testResultsDir } from './processes.ts';
import { startCli, type CliRun } from '../support/cli-run.ts';
import { eventually } from '../support/eventually.ts';

/**
 * A booted cluster refuses whoever lacks the run's passwords: what another local user of the machine would try.
 * And a whole run through the CLI leaves the passwords nowhere in its results but the 0600 secrets file.
 */
let dir: string;
let cluster: Cluster;

/**
 * Planted in the harness's environment before the servers start: none may reach a server. The etcd one would
 * set a 1-byte backend quota (every write then fails with NOSPACE), the Java one would reach ZooKeeper's JVM.
 */
const PLANTED = {
  ETCD_QUOTA_BACKEND_BYTES: '1',
  JAVA_TOOL_OPTIONS: '-Dfencepost.planted=1',
  FENCEPOST_PLANTED_TOKEN: 'ghp_planted0123456789',
};

beforeAll(async () => {
  dir = testResultsDir('credentials');
  Object.assign(process.env, PLANTED);
  try {
    cluster = await createLocalCluster(
      { redis: 1, pg: true, etcd: 1, zk: 1 },
      dir,
      new PidRegistry(path.join(dir, 'pids')),
    );
    await cluster.start();
  } finally {
    for (const k of Object.keys(PLANTED)) delete process.env[k];
  }
});

afterAll(async () => {
  await cluster?.teardown();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs a command as another local user (`nobody`, when we are root; as ourselves otherwise — still a client that
 * has none of the run's passwords), with a clean environment and stdin from `input`. Returns stdout + stderr.
 */
function asAnotherUser(cmd: string[], input = ''): string {
  const argv = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--', ...cmd] : cmd;
  const r = spawnSync(argv[0]!, argv.slice(1), {
    input,
    encoding: 'utf8',
    timeout: 30_000,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', ZOO_LOG_DIR: '/tmp' },
  });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`;
}

function lockContext(): LockContext {
  return {
    redis: [],
    etcd: cluster.etcd.map((n) => n.endpoint),
    etcdAuth: cluster.etcd[0]!.userAuth,
    zookeeper: cluster.zk.map((n) => n.connectString).join(','),
    zookeeperAuth: cluster.zk[0]!.userAuth,
    ttlMs: 5_000,
    acquireTimeoutMs: 3_000,
    client: 0,
    seed: 1,
  };
}

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

  it('refuses redis-cli of another local user', () => {
    const out = asAnotherUser(['redis-cli', '-h', '127.0.0.1', '-p', String(cluster.redis[0].port), 'SET', 'k', 'v']);
    expect(out).toMatch(/NOAUTH/);
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

describe('etcd with auth on', () => {
  let client: LockClient;
  const etcdctl = (...args: string[]) =>
    asAnotherUser(['etcdctl', `--endpoints=${cluster.etcd[0].endpoint}`, '--dial-timeout=3s', ...args]);

  beforeAll(async () => {
    client = await etcdStrategy.connect(lockContext());
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lets another local user neither read, hold nor delete a held lock key without the run's password", async () => {
    const lease = await client.acquire('shared');
    const key = lockKeyFor('shared');
    expect(etcdctl('get', '--prefix', 'fencepost/')).toMatch(/user name is empty/);
    expect(etcdctl('del', key)).toMatch(/user name is empty/);
    expect(etcdctl('put', 'fencepost/lock/other', 'mine')).toMatch(/user name is empty/);
    expect(etcdctl('--user=root:wrong', 'del', key)).toMatch(/authentication failed/);
    expect(etcdctl('--user=fencepost:wrong', 'del', key)).toMatch(/authentication failed/);
    expect(etcdctl('auth', 'disable')).toMatch(/user name is empty/);
    // Still ours: nothing above took effect.
    expect(await client.renew!(lease)).toBe(true);
    expect(await client.release(lease)).toBe(true);
  });

  it('lets the lock user touch fencepost/ only, and the root user everything', async () => {
    const user = cluster.etcd[0].userAuth;
    // The password reaches etcdctl on stdin (--interactive), never on a command line.
    const asUser = (...args: string[]) =>
      asAnotherUser(
        ['etcdctl', `--endpoints=${cluster.etcd[0].endpoint}`, '--dial-timeout=3s', `--user=${user.username}`, ...args],
        `${user.password}\n`,
      );
    expect(asUser('put', 'fencepost/probe-from-test', 'x')).toMatch(/^OK/m);
    expect(asUser('put', 'elsewhere', 'x')).toMatch(/permission denied/);
    const root = cluster.etcd[0].client();
    try {
      await root.put('elsewhere').value('root may');
      expect(await root.get('elsewhere').string()).toBe('root may');
    } finally {
      root.close();
    }
  });

  it('starts etcd with none of the harness environment (a planted ETCD_* would change the server)', async () => {
    for (const pid of cluster.etcd[0].pids()) {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      for (const k of Object.keys(PLANTED)) expect(env.filter((e) => e.startsWith(`${k}=`))).toEqual([]);
      expect(env.some((e) => e.startsWith('PATH='))).toBe(true);
    }
    // The 1-byte quota did not take: writes succeed.
    const lease = await client.acquire('quota');
    expect(await client.release(lease)).toBe(true);
  });
});

describe('ZooKeeper with a digest ACL', () => {
  let client: LockClient;
  /** zkCli.sh, one session, commands on stdin (no `addauth` unless given). */
  const zkCli = (commands: string[]) =>
    asAnotherUser(
      ['/usr/share/zookeeper/bin/zkCli.sh', '-server', cluster.zk[0].connectString],
      `${commands.join('\n')}\nquit\n`,
    );

  beforeAll(async () => {
    client = await zkStrategy.connect(lockContext());
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lets another local user neither read, queue ahead in nor delete a held lock without the run's identity", async () => {
    const lease = await client.acquire('shared');
    const dir = lockDirFor('shared');
    const out = zkCli([
      `ls ${dir}`,
      `create -s -e ${dir}/intruder-lock- x`,
      `deleteall ${dir}`,
      `setAcl ${dir} world:anyone:cdrwa`,
      'addauth digest fencepost:wrong',
      `ls ${dir}`,
    ]);
    expect(out.match(/Insufficient permission|NoAuth/g)?.length ?? 0).toBeGreaterThanOrEqual(5);
    expect(out).not.toMatch(/intruder-lock-\d{10}/);
    // Still ours, and alone in its folder.
    expect(await client.renew!(lease)).toBe(true);
    expect(await client.release(lease)).toBe(true);
  });

  it('lets the run identity in (the check above can tell the difference)', async () => {
    const lease = await client.acquire('visible');
    const out = zkCli([
      `addauth digest ${cluster.zk[0].userAuth.username}:${cluster.zk[0].userAuth.password}`,
      `ls ${lockDirFor('visible')}`,
    ]);
    expect(out).toMatch(/\[c0-[0-9a-f]{12}-lock-\d{10}\]/);
    expect(await client.release(lease)).toBe(true);
  });

  it('starts ZooKeeper with none of the harness environment', () => {
    for (const pid of cluster.zk[0].pids()) {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      for (const k of Object.keys(PLANTED)) expect(env.filter((e) => e.startsWith(`${k}=`))).toEqual([]);
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

  /** The newest run of `lock` under the results folder, once it has a folder. */
  const newestRun = (lock: string) => {
    const lockDir = path.join(results, lock);
    const stamp = fs.existsSync(lockDir) ? fs.readdirSync(lockDir).sort().at(-1) : undefined;
    return stamp && path.join(lockDir, stamp);
  };

  /** The history's records so far (the last line may be half written: skipped). */
  const historyOf = (runDir: string): Record<string, unknown>[] =>
    fs.existsSync(path.join(runDir, 'history.jsonl'))
      ? fs
          .readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')
          .split('\n')
          .flatMap((l) => {
            try {
              return [JSON.parse(l) as Record<string, unknown>];
            } catch {
              return [];
            }
          })
      : [];

  /**
   * Until the etcd member a kill struck is back (its end record says it rejoined) and a client has committed a write
   * since: the clients then met the restart (grpc-js's second Authenticate). A state, not a time limit a shot may miss.
   */
  const afterTheKill = async (run: CliRun) => {
    const rejoinedThenWrote = () => {
      const dir = newestRun('etcd');
      const ops = dir ? historyOf(dir) : [];
      const end = ops.findIndex(
        (o) => o.process === 'nemesis' && o.f === 'kill' && (o.value as { phase?: string })?.phase === 'end',
      );
      return end >= 0 && ops.slice(end).some((o) => o.type === 'ok' && o.f === 'write');
    };
    await eventually('a write committed after the killed etcd member rejoined', rejoinedThenWrote, 90_000);
    run.signal('SIGTERM');
  };

  /**
   * Redis's AUTH through ioredis, reconnecting to the masters restarted empty under A, by script
   * (scenarios/restart-empty.json: the run ends with the story, INVALID); etcd's Authenticate through grpc-js, a second
   * time once a member is killed and restarted. A script cannot name that fault (`kill` is kill-holder's verb), so the
   * run is free and stopped (SIGTERM, 130) once the clients wrote after the member's return.
   */
  // The etcd run: one kill (--shots=1), as soon as the clients run (the first shot waits min(interval, 1 s)).
  it.each([
    ['redlock', 'restart-empty', [`--scenario=${path.resolve('scenarios/restart-empty.json')}`], 1, null],
    ['etcd', 'kill', ['--nemesis=kill', '--nemesis-interval=100', '--shots=1', '--time-limit=60'], 130, afterTheKill],
  ] as const)(
    '--lock=%s --nemesis=%s writes its passwords only into the 0600 secrets file (deleted once its servers are stopped), even with every debug log of the libraries on',
    async (lock, nemesis, args, exit, stop) => {
      const run = startCli([`--lock=${lock}`, ...args], {
        results,
        output: 'ignore',
        // ioredis logs every command with its arguments under DEBUG, AUTH included; grpc-js traces calls.
        env: { DEBUG: '*', NODE_DEBUG: 'net,http,tls', GRPC_TRACE: 'all', GRPC_VERBOSITY: 'DEBUG' },
      });
      const code = run.exit.then((e) => e.code);
      // The secrets exist only while the run does: read them then (the harness writes them before any server starts).
      let secretsFile: string | undefined;
      const readSecrets = () => {
        const dir = newestRun(lock);
        secretsFile = dir && path.join(dir, SECRETS_FILE);
        if (secretsFile && fs.existsSync(secretsFile) && fs.statSync(secretsFile).size > 0)
          return JSON.parse(fs.readFileSync(secretsFile, 'utf8')) as Record<string, string>;
      };
      const secrets = await eventually("the run's secrets file", readSecrets, 60_000, 100).catch(() => undefined);
      expect(secrets && Object.keys(secrets).sort()).toEqual([
        'dynamodbKeyId',
        'dynamodbSecret',
        'etcd',
        'etcdRoot',
        'pg',
        'pgSuperuser',
        'redis',
        'zk',
      ]);
      expect((fs.statSync(secretsFile!).mode & 0o777).toString(8)).toBe('600');
      await stop?.(run);
      expect(await code).toBe(exit);
      const runDir = fs.realpathSync(newestRun(lock)!);
      // The fault struck and its server came back: the libraries met it (their reconnects are what this checks).
      const ends = historyOf(runDir).filter((o) => o.f === nemesis && (o.value as { phase?: string })?.phase === 'end');
      expect(ends.length).toBeGreaterThan(0);
      // The run did use them: its history has committed writes.
      expect(fs.readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')).toMatch(/"type":"ok","f":"write"/);
      expect(fs.existsSync(path.join(runDir, SECRETS_FILE))).toBe(false);
      for (const password of Object.values(secrets!)) expect(filesContaining(results, password)).toEqual([]);
    },
  );
});
