import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_CLUSTER, type Cluster } from '../../cluster/cluster.ts';
import { CONTAINER_LABEL } from '../../cluster/docker/container-host.ts';
import { createDockerCluster } from '../../cluster/docker/cluster.ts';
import { connectDockerEngine, engineError, engineProblem } from '../../cluster/docker/engine.ts';
import { removeLeftoverContainers } from '../../cluster/docker/leftovers.ts';
import { ensureNodeImage } from '../../cluster/docker/ensure-image.ts';
import { HarnessError } from '../../common/errors.ts';
import { EXIT } from '../../common/exit-codes.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import { PidRegistry } from '../../common/pid-registry.ts';
import { runTest } from '../../harness/run.ts';
import { Shutdown } from '../../common/shutdown.ts';
import { engineForTests } from './engine-for-tests.ts';

const docker = await engineForTests('docker backend tests');

describe('docker backend without an engine', () => {
  it('exits 254 with the commands that start one', async () => {
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = 'unix:///nonexistent/docker.sock';
    try {
      const err = await connectDockerEngine().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HarnessError);
      expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
      expect((err as HarnessError).message).toContain('/nonexistent/docker.sock');
      expect((err as HarnessError).hint).toContain('dockerd --bridge=none --iptables=false --ip-masq=false');
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });
});

describe('docker engine problems', () => {
  it('a socket that refuses this user is a permission problem with the usermod command, exit 254', () => {
    const problem = engineProblem(Object.assign(new Error('connect EACCES /var/run/docker.sock'), { code: 'EACCES' }));
    expect(problem.kind).toBe('permission');
    const err = engineError(problem);
    expect(err.exitCode).toBe(EXIT.badArguments);
    expect(err.message).toContain('permission denied');
    expect(err.hint).toContain('sudo usermod -aG docker $USER');
    expect(err.hint).not.toContain('dockerd');
  });

  it('a missing socket or a refused connection is "no engine", with the commands that start one', () => {
    for (const code of ['ENOENT', 'ECONNREFUSED']) {
      const problem = engineProblem(Object.assign(new Error(code), { code }));
      expect(problem.kind).toBe('absent');
      expect(engineError(problem).hint).toContain('dockerd --bridge=none');
    }
  });
});

describe.skipIf(!docker)('docker backend', () => {
  let dir: string;
  let cluster: Cluster;
  const ours = async (label = `${CONTAINER_LABEL.run}=${dir}`) =>
    docker!.listContainers({ all: true, filters: { label: [label] } });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-docker-'));
    // The image is built once per machine (~1.5 min offline) and cached by tag.
    await ensureNodeImage(docker!, (l) => console.log(l));
    cluster = await createDockerCluster(FULL_CLUSTER, dir, new PidRegistry(path.join(dir, 'pids')), (l) =>
      console.log(l),
    );
    await cluster.start();
  }, 400_000);

  afterAll(async () => {
    await cluster?.teardown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('boots 12 nodes, one host-network container each, on distinct 127.0.0.1 ports with real client calls', async () => {
    expect(cluster.nodes.map((n) => n.name)).toEqual([
      'redis[0]',
      'redis[1]',
      'redis[2]',
      'redis[3]',
      'redis[4]',
      'etcd[0]',
      'etcd[1]',
      'etcd[2]',
      'zk[0]',
      'zk[1]',
      'zk[2]',
      'pg',
    ]);
    expect(new Set(cluster.nodes.map((n) => n.port)).size).toBe(12);
    const containers = await ours();
    expect(containers.map((c) => c.Labels[CONTAINER_LABEL.node]).sort()).toEqual(
      cluster.nodes.map((n) => n.name).sort(),
    );
    expect(containers.every((c) => c.HostConfig.NetworkMode === 'host' && c.State === 'running')).toBe(true);
    const versions = await Promise.all(cluster.nodes.map((n) => n.version()));
    expect(versions.every((v) => /^\d+\.\d+/.test(v))).toBe(true);
    expect((await Promise.all(cluster.zk.map((z) => z.mode()))).filter((m) => m === 'leader')).toHaveLength(1);
    // Logs are streamed from the containers into the run dir, like the local backend's.
    expect(fs.readFileSync(cluster.pg!.logFile, 'utf8')).toContain('database system is ready to accept connections');
  });

  it('pause freezes the whole Postgres container (no query answers) and resume thaws it', async () => {
    const pg = cluster.pg!;
    await pg.pause();
    const [info] = await ours(`${CONTAINER_LABEL.node}=pg`).then((cs) =>
      cs.filter((c) => c.Labels[CONTAINER_LABEL.run] === dir),
    );
    expect(info.State).toBe('paused');
    await expect(pg.version()).rejects.toThrow();
    await pg.resume();
    await expect(pg.version()).resolves.toMatch(/^\d+/);
  });

  it('kill ends the container; start brings a new one up on the same port (Redis empty without persistence)', async () => {
    const r = cluster.redis[1];
    const c = r.client();
    await c.connect();
    await c.set('k', 'v');
    c.disconnect();
    await r.kill();
    expect(r.running).toBe(false);
    expect((await ours()).filter((x) => x.Labels[CONTAINER_LABEL.node] === 'redis[1]')).toEqual([]);
    r.wipe();
    await r.start();
    const c2 = r.client();
    await c2.connect();
    expect(await c2.get('k')).toBeNull();
    c2.disconnect();
  });

  it("stop and start keep an etcd member's data: it rejoins", async () => {
    await cluster.etcd[2].stop();
    expect(cluster.etcd[2].running).toBe(false);
    await cluster.etcd[2].start();
    expect((await cluster.etcd[2].status()).leader).not.toBe('0');
  });

  it('teardown resumes paused nodes and removes every container of the run', async () => {
    await cluster.redis[0].pause();
    await cluster.zk[0].pause();
    await cluster.teardown();
    expect(await ours()).toEqual([]);
  });

  it('cleanup removes containers whose harness is gone', async () => {
    const image = await ensureNodeImage(docker!, () => {});
    const orphan = await docker!.createContainer({
      Image: image.tag,
      Cmd: ['sleep', '600'],
      Labels: {
        [CONTAINER_LABEL.marker]: '1',
        [CONTAINER_LABEL.run]: dir,
        [CONTAINER_LABEL.node]: 'orphan',
        [CONTAINER_LABEL.harnessPid]: '999999999',
      },
      HostConfig: { NetworkMode: 'none' },
    });
    await orphan.start();
    expect(await removeLeftoverContainers(() => {})).toBeGreaterThanOrEqual(1);
    expect(await ours()).toEqual([]);
  });

  it('runs a short test end to end: --backend=docker --lock=redis --nemesis=none', async () => {
    const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-docker-run-'));
    try {
      const config = resolveConfig([
        '--backend=docker',
        '--lock=redis',
        '--time-limit=5',
        '--nemesis=none',
        `--results=${results}`,
        '--seed=7',
      ]);
      const outcome = await runTest(config, new Shutdown(), () => {});
      expect(outcome.results.valid).toBe(true);
      expect(outcome.exitCode).toBe(EXIT.valid);
      expect(outcome.results.opCounts.ok).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(outcome.runDir, 'logs', 'redis0.log'))).toBe(true);
      expect(await ours(`${CONTAINER_LABEL.run}=${outcome.runDir}`)).toEqual([]);
    } finally {
      fs.rmSync(results, { recursive: true, force: true });
    }
  });
});
