import fs from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import {
  etcdArgs,
  ownerDeployment,
  ownerLayout,
  redisConf,
  targetOf,
  type OwnerDeployment,
} from '../support/owner-deployment.ts';

/**
 * The owner deployment of test/support/owner-deployment.ts in Docker containers: one per server, from the node image
 * (its Redis and etcd), on the host network so they listen on 127.0.0.1 like the processes do, each with the owner's
 * folder mounted (its configuration; etcd's data, which survives a kill). No fencepost labels: these are the owner's,
 * and fencepost's `cleanup` must never take them for its own. The target file names the docker adapter, acting on
 * the containers by name.
 */
export async function startOwnerContainers(docker: Docker, image: string, prefix: string): Promise<OwnerDeployment> {
  const l = await ownerLayout(prefix);
  const tag = path.basename(l.dir).replace(/[^A-Za-z0-9_.-]/g, '');
  fs.writeFileSync(path.join(l.dir, 'r0.conf'), redisConf(l, false), { mode: 0o644 });
  const specs = [
    { name: `${tag}-r0`, cmd: ['redis-server', path.join(l.dir, 'r0.conf')] },
    ...l.etcd.map((e, i) => ({ name: `${tag}-${e.name}`, cmd: ['etcd', ...etcdArgs(l, i)] })),
  ];
  const containers: Docker.Container[] = [];
  const stop = async () => {
    await Promise.all(containers.map((c) => c.remove({ force: true }).catch(() => {})));
    fs.rmSync(l.dir, { recursive: true, force: true });
  };
  try {
    for (const s of specs) {
      const c = await docker.createContainer({
        name: s.name,
        Image: image,
        Cmd: s.cmd,
        HostConfig: { NetworkMode: 'host', Binds: [`${l.dir}:${l.dir}`] },
      });
      containers.push(c);
      await c.start();
    }
    const docker_ = { type: 'docker' };
    return await ownerDeployment(
      l,
      { redis: specs[0].name, etcd: specs.slice(1).map((s) => s.name) },
      (d, opts) => targetOf(d, opts, docker_),
      stop,
    );
  } catch (err) {
    await stop();
    throw err;
  }
}
