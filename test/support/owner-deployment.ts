import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { Redis } from 'ioredis';
import { freePorts } from '../../common/free-port.ts';
import { requireServersTier } from './servers-tier.ts';
import { untilAsync } from './until-async.ts';

/**
 * A deployment the test owns, as a user's would be: one Redis and a 3-member etcd started as plain processes on
 * 127.0.0.1 (not by fencepost), each with an admin login and a `fp` login fenced to the run's prefix by the servers
 * themselves (Redis ACL `~<prefix>*`, an etcd role with a prefix permission), and the owner's scripts an exec
 * adapter calls with the node's name: `pause` / `resume` (SIGSTOP / SIGCONT), `kill` (SIGKILL) and `start` (start it
 * again from its configuration: Redis keeps nothing, so it comes back empty), `evidence` (its pid and state).
 */
export interface OwnerDeployment {
  readonly dir: string;
  readonly prefix: string;
  readonly redis: { name: string; port: number };
  readonly etcd: { name: string; port: number }[];
  /** The environment a run needs: the `fp` passwords, under the names the target file gives. */
  readonly env: Record<string, string>;
  readonly admin: { redis: string; etcdRoot: string };
  /** Writes a target file for this deployment; `adapter: 'none'` names no adapter (server faults are refused). */
  targetFile(opts: { adapter: 'exec' | 'none'; faults?: string[]; extra?: Record<string, unknown> }): string;
  redisAdmin(): Redis;
  etcdAdmin(): Etcd3;
  stop(): Promise<void>;
}

const SCRIPTS: Record<string, string> = {
  'start.sh': 'sh "$D/$1.start"',
  'pause.sh': 'kill -STOP "$(cat "$D/$1.pid")"',
  'resume.sh': 'kill -CONT "$(cat "$D/$1.pid")"',
  // SIGKILL, then wait until the process is gone: the server is dead when the script returns.
  'kill.sh':
    'p=$(cat "$D/$1.pid"); kill -KILL "$p"; i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.02; i=$((i+1)); done',
  'evidence.sh': 'p=$(cat "$D/$1.pid"); echo "pid $p"; ps -o stat= -p "$p" || echo gone',
};

function writeScripts(dir: string): void {
  for (const [name, body] of Object.entries(SCRIPTS))
    fs.writeFileSync(path.join(dir, name), `#!/bin/sh\nset -e\nD="${dir}"\n${body}\n`, { mode: 0o755 });
}

function redisConf(dir: string, port: number, prefix: string, pw: { admin: string; fp: string }): string {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'daemonize yes',
    `pidfile ${dir}/r0.pid`,
    `logfile ${dir}/r0.log`,
    `dir ${dir}`,
    'save ""',
    'appendonly no',
    `user default on >${pw.admin} ~* &* +@all`,
    // The run's login: keys under the prefix only, no KEYS/FLUSHALL/CONFIG (-@dangerous).
    `user fp on >${pw.fp} ~${prefix}* resetchannels +@all -@dangerous`,
  ].join('\n');
}

function etcdStart(dir: string, name: string, client: number, peer: number, cluster: string): string {
  const u = (p: number) => `http://127.0.0.1:${p}`;
  return [
    `setsid etcd --name ${name} --data-dir ${dir}/${name}-data`,
    `--listen-client-urls ${u(client)} --advertise-client-urls ${u(client)}`,
    `--listen-peer-urls ${u(peer)} --initial-advertise-peer-urls ${u(peer)}`,
    `--initial-cluster ${cluster} --initial-cluster-token owner --initial-cluster-state new`,
    `--heartbeat-interval 50 --election-timeout 500 >> ${dir}/${name}.log 2>&1 < /dev/null &`,
    `echo $! > ${dir}/${name}.pid`,
  ].join(' ');
}

export async function startOwnerDeployment(prefix = 'fp-test/'): Promise<OwnerDeployment> {
  requireServersTier('the owner deployment');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-owner-'));
  writeScripts(dir);
  const pw = { admin: randomBytes(12).toString('hex'), fp: randomBytes(12).toString('hex') };
  const etcdPw = { root: randomBytes(12).toString('hex'), fp: randomBytes(12).toString('hex') };
  const [redisPort, ...etcdPorts] = await freePorts(7);
  fs.writeFileSync(path.join(dir, 'r0.conf'), redisConf(dir, redisPort, prefix, pw), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'r0.start'), `redis-server ${dir}/r0.conf\n`);
  const etcd = [0, 1, 2].map((i) => ({ name: `e${i}`, port: etcdPorts[2 * i], peer: etcdPorts[2 * i + 1] }));
  const cluster = etcd.map((e) => `${e.name}=http://127.0.0.1:${e.peer}`).join(',');
  for (const e of etcd)
    fs.writeFileSync(path.join(dir, `${e.name}.start`), etcdStart(dir, e.name, e.port, e.peer, cluster));
  for (const node of ['r0', ...etcd.map((e) => e.name)]) execFileSync(path.join(dir, 'start.sh'), [node]);
  const hosts = etcd.map((e) => `http://127.0.0.1:${e.port}`);
  const redisAdmin = () => new Redis({ port: redisPort, host: '127.0.0.1', password: pw.admin, lazyConnect: true });
  await untilAsync(
    'the owner Redis answers',
    async () => {
      const r = redisAdmin();
      try {
        return (await r.ping()) === 'PONG' ? true : undefined;
      } finally {
        r.disconnect();
      }
    },
    10_000,
  );
  const plain = new Etcd3({ hosts, dialTimeout: 1000 });
  await untilAsync(
    'the owner etcd has a leader',
    async () => ((await plain.get('ready').string()) ?? 'none') && true,
    20_000,
  );
  const role = await plain.role('fp').create();
  await role.grant({ permission: 'Readwrite', range: (await import('etcd3')).Range.prefix(prefix) });
  await plain.user('fp').create(etcdPw.fp);
  await plain.user('fp').addRole('fp');
  await plain.user('root').create(etcdPw.root);
  await plain.user('root').addRole('root');
  await plain.auth.authEnable();
  plain.close();
  const d: OwnerDeployment = {
    dir,
    prefix,
    redis: { name: 'r0', port: redisPort },
    etcd: etcd.map(({ name, port }) => ({ name, port })),
    env: { FP_REDIS_PASSWORD: pw.fp, FP_ETCD_PASSWORD: etcdPw.fp },
    admin: { redis: pw.admin, etcdRoot: etcdPw.root },
    targetFile: (opts) => writeTarget(d, opts),
    redisAdmin,
    etcdAdmin: () => new Etcd3({ hosts, dialTimeout: 1000, auth: { username: 'root', password: etcdPw.root } }),
    async stop() {
      for (const node of ['r0', ...etcd.map((e) => e.name)]) {
        try {
          const pid = Number(fs.readFileSync(path.join(dir, `${node}.pid`), 'utf8'));
          process.kill(pid, 'SIGCONT');
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return d;
}

function writeTarget(
  d: OwnerDeployment,
  opts: { adapter: 'exec' | 'none'; faults?: string[]; extra?: Record<string, unknown> },
): string {
  const file = path.join(d.dir, `target-${randomBytes(3).toString('hex')}.json`);
  const exec = {
    type: 'exec',
    commands: Object.fromEntries(
      ['pause', 'resume', 'kill', 'start', 'evidence'].map((a) => [a, [`./${a}.sh`, '{node}']]),
    ),
  };
  const target = {
    name: 'owner-test',
    'i-own-this': true,
    allowHosts: ['127.0.0.1'],
    keyPrefix: d.prefix,
    servers: {
      redis: {
        endpoints: [{ host: '127.0.0.1', port: d.redis.port, node: d.redis.name }],
        user: 'fp',
        passwordEnv: 'FP_REDIS_PASSWORD',
      },
      etcd: {
        endpoints: d.etcd.map((e) => ({ host: '127.0.0.1', port: e.port, node: e.name })),
        user: 'fp',
        passwordEnv: 'FP_ETCD_PASSWORD',
      },
    },
    ...(opts.adapter === 'exec'
      ? { adapters: { owner: exec }, serverFaults: Object.fromEntries((opts.faults ?? []).map((f) => [f, 'owner'])) }
      : {}),
    ...opts.extra,
  };
  fs.writeFileSync(file, JSON.stringify(target, null, 2));
  return file;
}
