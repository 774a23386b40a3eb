import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Etcd3, Range } from 'etcd3';
import { Redis } from 'ioredis';
import { freePorts } from '../../common/free-port.ts';
import { requireServersTier } from './servers-tier.ts';
import { eventually } from './eventually.ts';

/**
 * A deployment the test owns, as a user's would be: one Redis and a 3-member etcd on 127.0.0.1, started by the test
 * (plain processes here; containers in test/docker/owner-containers.ts), not by fencepost. Each server has an admin
 * login and a `fp` login fenced to the run's prefix by the server itself (Redis ACL `~<prefix>*`, an etcd role with
 * a prefix permission). As processes, the owner's scripts are what an exec adapter calls with the node's name:
 * `pause` / `resume` (SIGSTOP / SIGCONT), `kill` (SIGKILL, returns once it is gone), `start` (start it again from its
 * configuration: Redis keeps nothing, so it comes back empty), `evidence` (its pid and state).
 */
export interface OwnerDeployment {
  readonly dir: string;
  readonly prefix: string;
  /** `node`: what an adapter acts on (a script's argument, a container's name). */
  readonly redis: { name: string; port: number; node: string };
  readonly etcd: { name: string; port: number; node: string }[];
  /** The environment a run needs: the `fp` passwords, under the names the target file gives. */
  readonly env: Record<string, string>;
  readonly admin: { redis: string; etcdRoot: string };
  /** A target file for this deployment: with the owner's adapter for `faults`, or no adapter at all. */
  targetFile(opts: { adapter: 'owner' | 'none'; faults?: string[] }): string;
  redisAdmin(): Redis;
  etcdAdmin(): Etcd3;
  stop(): Promise<void>;
}

/** The ports, passwords and folder of an owner deployment, before anything runs. */
export interface OwnerLayout {
  dir: string;
  prefix: string;
  redisPort: number;
  etcd: { name: string; port: number; peer: number }[];
  pw: { admin: string; fp: string; etcdRoot: string; etcdFp: string };
}

export async function ownerLayout(prefix: string): Promise<OwnerLayout> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-owner-'));
  const [redisPort, ...p] = await freePorts(7);
  const pw = () => randomBytes(12).toString('hex');
  return {
    dir,
    prefix,
    redisPort,
    etcd: [0, 1, 2].map((i) => ({ name: `e${i}`, port: p[2 * i], peer: p[2 * i + 1] })),
    pw: { admin: pw(), fp: pw(), etcdRoot: pw(), etcdFp: pw() },
  };
}

/** The owner's Redis configuration: the admin as the default user, `fp` fenced to the prefix, no persistence. */
export function redisConf(l: OwnerLayout, daemonize: boolean): string {
  return [
    `port ${l.redisPort}`,
    'bind 127.0.0.1',
    `daemonize ${daemonize ? 'yes' : 'no'}`,
    ...(daemonize ? [`pidfile ${l.dir}/r0.pid`, `logfile ${l.dir}/r0.log`] : []),
    `dir ${l.dir}`,
    'save ""',
    'appendonly no',
    `user default on >${l.pw.admin} ~* &* +@all`,
    // The run's login: keys under the prefix only, and no KEYS, FLUSHALL, CONFIG (-@dangerous).
    `user fp on >${l.pw.fp} ~${l.prefix}* resetchannels +@all -@dangerous`,
  ].join('\n');
}

/** One etcd member's command line. */
export function etcdArgs(l: OwnerLayout, i: number): string[] {
  const e = l.etcd[i];
  const u = (port: number) => `http://127.0.0.1:${port}`;
  const cluster = l.etcd.map((m) => `${m.name}=${u(m.peer)}`).join(',');
  return [
    ...['--name', e.name, '--data-dir', `${l.dir}/${e.name}-data`],
    ...['--listen-client-urls', u(e.port), '--advertise-client-urls', u(e.port)],
    ...['--listen-peer-urls', u(e.peer), '--initial-advertise-peer-urls', u(e.peer)],
    ...['--initial-cluster', cluster, '--initial-cluster-token', 'owner', '--initial-cluster-state', 'new'],
    ...['--heartbeat-interval', '50', '--election-timeout', '500'],
  ];
}

/**
 * Waits for the servers to answer, then fences etcd: a `fp` role that may read and write the prefix and nothing
 * else, its user, a root user, auth on. Returns the deployment's handle; `stop` is the starter's.
 */
export async function ownerDeployment(
  l: OwnerLayout,
  nodes: { redis: string; etcd: string[] },
  target: (d: OwnerDeployment, opts: { adapter: 'owner' | 'none'; faults?: string[] }) => Record<string, unknown>,
  stop: () => Promise<void>,
): Promise<OwnerDeployment> {
  const hosts = l.etcd.map((e) => `http://127.0.0.1:${e.port}`);
  const redisAdmin = () => new Redis({ port: l.redisPort, host: '127.0.0.1', password: l.pw.admin, lazyConnect: true });
  await eventually(
    'the owner Redis answers',
    async () => {
      const r = redisAdmin();
      r.on('error', () => {});
      try {
        return (await r.ping()) === 'PONG' ? true : undefined;
      } finally {
        r.disconnect();
      }
    },
    30_000,
  );
  const plain = new Etcd3({ hosts, dialTimeout: 1000 });
  await eventually(
    'the owner etcd has a leader',
    async () => ((await plain.get('ready').string()) ?? 'none') && true,
    30_000,
  );
  const role = await plain.role('fp').create();
  await role.grant({ permission: 'Readwrite', range: Range.prefix(l.prefix) });
  await plain.user('fp').create(l.pw.etcdFp);
  await plain.user('fp').addRole('fp');
  await plain.user('root').create(l.pw.etcdRoot);
  await plain.user('root').addRole('root');
  await plain.auth.authEnable();
  plain.close();
  const d: OwnerDeployment = {
    dir: l.dir,
    prefix: l.prefix,
    redis: { name: 'r0', port: l.redisPort, node: nodes.redis },
    etcd: l.etcd.map((e, i) => ({ name: e.name, port: e.port, node: nodes.etcd[i] })),
    env: { FP_REDIS_PASSWORD: l.pw.fp, FP_ETCD_PASSWORD: l.pw.etcdFp },
    admin: { redis: l.pw.admin, etcdRoot: l.pw.etcdRoot },
    targetFile(opts) {
      const file = path.join(l.dir, `target-${randomBytes(3).toString('hex')}.json`);
      fs.writeFileSync(file, JSON.stringify(target(d, opts), null, 2));
      return file;
    },
    redisAdmin,
    etcdAdmin: () => new Etcd3({ hosts, dialTimeout: 1000, auth: { username: 'root', password: l.pw.etcdRoot } }),
    stop,
  };
  return d;
}

/** The target file of a deployment, with `adapter` (its spec) for `faults` when asked for. */
export function targetOf(
  d: OwnerDeployment,
  opts: { adapter: 'owner' | 'none'; faults?: string[] },
  adapter: Record<string, unknown>,
): Record<string, unknown> {
  return {
    name: 'owner-test',
    'i-own-this': true,
    allowHosts: ['127.0.0.1'],
    keyPrefix: d.prefix,
    servers: {
      redis: {
        endpoints: [{ name: d.redis.name, host: '127.0.0.1', port: d.redis.port, node: d.redis.node }],
        user: 'fp',
        passwordEnv: 'FP_REDIS_PASSWORD',
      },
      etcd: {
        endpoints: d.etcd.map((e) => ({ name: e.name, host: '127.0.0.1', port: e.port, node: e.node })),
        user: 'fp',
        passwordEnv: 'FP_ETCD_PASSWORD',
      },
    },
    ...(opts.adapter === 'owner'
      ? { adapters: { owner: adapter }, serverFaults: Object.fromEntries((opts.faults ?? []).map((f) => [f, 'owner'])) }
      : {}),
  };
}

const SCRIPTS: Record<string, string> = {
  'start.sh': 'sh "$D/$1.start"',
  'pause.sh': 'kill -STOP "$(cat "$D/$1.pid")"',
  'resume.sh': 'kill -CONT "$(cat "$D/$1.pid")"',
  'kill.sh':
    // Gone = exited: a zombie (the test, its parent, has not reaped it yet) answers kill -0 but serves nothing; waiting
    // on it made every kill take its full 4 s bound, and the fault struck after the holder's section.
    'p=$(cat "$D/$1.pid"); kill -KILL "$p"; i=0; while kill -0 "$p" 2>/dev/null && ! grep -q "^State:[[:space:]]*Z" "/proc/$p/status" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.02; i=$((i+1)); done',
  'evidence.sh': 'p=$(cat "$D/$1.pid"); echo "pid $p"; ps -o stat= -p "$p" || echo gone',
};

/** The deployment as plain processes, with the owner's scripts for the exec adapter. */
export async function startOwnerDeployment(prefix = 'fp-test/'): Promise<OwnerDeployment> {
  requireServersTier('the owner deployment');
  const l = await ownerLayout(prefix);
  for (const [name, body] of Object.entries(SCRIPTS))
    fs.writeFileSync(path.join(l.dir, name), `#!/bin/sh\nset -e\nD="${l.dir}"\n${body}\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(l.dir, 'r0.conf'), redisConf(l, true), { mode: 0o600 });
  fs.writeFileSync(path.join(l.dir, 'r0.start'), `redis-server ${l.dir}/r0.conf\n`);
  l.etcd.forEach((e, i) => {
    const start = `setsid etcd ${etcdArgs(l, i).join(' ')} >> ${l.dir}/${e.name}.log 2>&1 < /dev/null &\necho $! > ${l.dir}/${e.name}.pid\n`;
    fs.writeFileSync(path.join(l.dir, `${e.name}.start`), start);
  });
  const nodes = ['r0', ...l.etcd.map((e) => e.name)];
  for (const node of nodes) execFileSync(path.join(l.dir, 'start.sh'), [node]);
  const exec = {
    type: 'exec',
    commands: Object.fromEntries(
      ['pause', 'resume', 'kill', 'start', 'evidence'].map((a) => [a, [`./${a}.sh`, '{node}']]),
    ),
  };
  return ownerDeployment(
    l,
    { redis: 'r0', etcd: l.etcd.map((e) => e.name) },
    (d, opts) => targetOf(d, opts, exec),
    async () => {
      for (const node of nodes) {
        try {
          const pid = Number(fs.readFileSync(path.join(l.dir, `${node}.pid`), 'utf8'));
          process.kill(pid, 'SIGCONT');
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      fs.rmSync(l.dir, { recursive: true, force: true });
    },
  );
}
