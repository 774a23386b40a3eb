import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { childPids, startTime } from '../../common/pid-registry.ts';
import type { Command, LaunchRequest, NodeHost, RunningServer, ServerUser } from '../node-host.ts';
import type { NodeImage } from './ensure-image.ts';

/** Labels on every container of ours: `cleanup` finds leftovers by them (there is no Ryuk to reap them). */
export const CONTAINER_LABEL = {
  marker: 'fencepost',
  run: 'fencepost.run',
  node: 'fencepost.node',
  harnessPid: 'fencepost.harness-pid',
  harnessStart: 'fencepost.harness-start',
} as const;

function errorStatus(err: unknown): number | undefined {
  return (err as { statusCode?: number }).statusCode;
}

/** How a container's main process ended, in the words the local backend uses. */
function describeExit(code: number): string {
  return code > 128 ? `killed by signal ${code - 128}${code === 137 ? ' (SIGKILL)' : ''}` : `exited with code ${code}`;
}

/**
 * The docker backend's host: each start of a node is a fresh container of the node image with the node's command
 * (its command line and environment are recomputed at every start, like a local spawn: a replica's `--replicaof`,
 * the clock shim), on the host network so servers listen on 127.0.0.1 exactly like local ones. The node's folder
 * is bind-mounted at the same path, so data survives kill/start and every path in the command works unchanged;
 * so are the folders of absolute paths in its environment (the clock shim and its offset file).
 * `pause` freezes every process of the container (Postgres's backends included); `kill` is SIGKILL to the container.
 */
export class ContainerHost implements NodeHost {
  /** Containers created and not yet removed, for `dispose`. */
  private readonly live = new Set<string>();
  private readonly setups = new Map<string, Set<Docker.Container>>();
  private readonly labels: Record<string, string>;
  private seq = 0;

  constructor(
    private readonly docker: Docker,
    private readonly image: NodeImage,
    runDir: string,
  ) {
    this.labels = {
      [CONTAINER_LABEL.marker]: '1',
      [CONTAINER_LABEL.run]: runDir,
      [CONTAINER_LABEL.harnessPid]: String(process.pid),
      [CONTAINER_LABEL.harnessStart]: String(startTime(process.pid) ?? ''),
    };
    this.runTag = path.basename(runDir).replace(/[^A-Za-z0-9_.-]/g, '');
    this.passwdFile = path.join(runDir, 'container-passwd');
  }

  /**
   * Whether the harness is root. Only root can hand the data dir to the image's `postgres` user (chown); a user in
   * the docker group runs Postgres as themself instead (it refuses only root), so every file stays theirs to
   * wipe and remove — no chown, no root-owned leftovers in their results folder.
   */
  private readonly root = (process.getuid?.() ?? 0) === 0;
  /** An /etc/passwd naming the harness's uid, for a non-root harness: initdb refuses a uid it can't look up. */
  private readonly passwdFile: string;

  private readonly runTag: string;

  // Only Postgres changes user in a container (it refuses root), and only when the harness is root: a non-root
  // harness runs it as itself, so every file of the run stays the user's. The others stay the container's root,
  // which the container already isolates.
  account(user: ServerUser): { uid: number; gid: number } | undefined {
    return user === 'postgres' && this.root ? this.image.postgresUser : undefined;
  }

  /** The node's folder is mounted on its own: the folders above it in the container are root's 0755 ones. */
  canEnter(): boolean {
    return true;
  }

  postgresBinDir(): string {
    return this.image.postgresBin;
  }

  private user(cmd: Command): string {
    if (cmd.user === 'postgres' && this.root) return `${this.image.postgresUser.uid}:${this.image.postgresUser.gid}`;
    // The harness's own uid, so files the servers write under the run dir are the harness's to wipe and remove.
    return `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  }

  private binds(dir: string, env: Record<string, string>, cmd: Command): string[] {
    const dirs = new Set([path.resolve(dir)]);
    for (const value of Object.values(env)) {
      if (path.isAbsolute(value) && fs.existsSync(value)) dirs.add(path.dirname(path.resolve(value)));
    }
    const binds = [...dirs].map((d) => `${d}:${d}`);
    if (cmd.user === 'postgres' && !this.root) binds.push(`${this.writePasswd()}:/etc/passwd:ro`);
    return binds;
  }

  /** root (for the image's own tools) and the harness's uid:gid; Postgres needs nothing else from it. */
  private writePasswd(): string {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    fs.writeFileSync(
      this.passwdFile,
      `root:x:0:0:root:/root:/bin/sh\nfencepost:x:${uid}:${gid}:fencepost harness user:/nonexistent:/usr/sbin/nologin\n`,
      { mode: 0o644 },
    );
    return this.passwdFile;
  }

  private containerName(node: string): string {
    return `fencepost-${this.runTag}-${node.replace(/[^A-Za-z0-9_.-]/g, '')}-${++this.seq}`;
  }

  async launch(req: LaunchRequest): Promise<RunningServer> {
    // Loaded on first use: a local run never pays for testcontainers.
    const { GenericContainer } = await import('testcontainers');
    const log = fs.createWriteStream(req.logFile, { flags: 'a' });
    const started = await new GenericContainer(this.image.tag)
      .withName(this.containerName(req.name))
      .withNetworkMode('host')
      .withCommand([req.cmd.file, ...req.cmd.args])
      .withUser(this.user(req.cmd))
      .withEnvironment(req.env)
      .withWorkingDir(req.cwd)
      .withBindMounts(this.binds(req.dir, req.env, req.cmd).map(toBindMount))
      .withLabels({ ...this.labels, [CONTAINER_LABEL.node]: req.name })
      .withLogConsumer((stream: Readable) => stream.pipe(log))
      .start();
    const id = started.getId();
    this.live.add(id);
    const container = this.docker.getContainer(id);
    const mainPid = (await container.inspect()).State.Pid;
    let paused = false;
    let gone = false;
    const exited = container
      .wait()
      .then((r: { StatusCode: number }) => describeExit(r.StatusCode))
      .catch((err: Error) => `ended (engine: ${err.message})`)
      .then(async (info) => {
        gone = true;
        await this.remove(container);
        return info;
      });
    const withChildren = req.kind === 'pg';
    return {
      exited,
      pids: () => (gone || !mainPid ? [] : [mainPid, ...(withChildren ? childPids(mainPid) : [])]),
      async pause() {
        if (gone || paused) return;
        await container.pause();
        paused = true;
      },
      async resume() {
        if (!paused) return;
        await container.unpause().catch((err) => {
          if (errorStatus(err) !== 409 && errorStatus(err) !== 404) throw err;
        });
        paused = false;
      },
      async signal(signal) {
        if (gone) return;
        await container.kill({ signal }).catch(() => {});
      },
      async kill() {
        if (gone) return;
        // A paused container can't be killed (the engine refuses; frozen tasks wouldn't see the signal anyway).
        if (paused) await container.unpause().catch(() => {});
        paused = false;
        await container.kill({ signal: 'SIGKILL' }).catch(() => {});
      },
    };
  }

  /** A one-shot container with the node's folder mounted, no network (initdb needs none). */
  async runSetup(name: string, dir: string, cmd: Command, cwd: string): Promise<void> {
    const container = await this.docker.createContainer({
      name: this.containerName(`${name}-setup`),
      Image: this.image.tag,
      Cmd: [cmd.file, ...cmd.args],
      User: this.user(cmd),
      WorkingDir: cwd,
      Labels: { ...this.labels, [CONTAINER_LABEL.node]: `${name}-setup` },
      HostConfig: { NetworkMode: 'none', Binds: this.binds(dir, {}, cmd) },
    });
    this.live.add(container.id);
    const mine = this.setups.get(name) ?? new Set();
    this.setups.set(name, mine.add(container));
    try {
      await container.start();
      const { StatusCode } = (await container.wait()) as { StatusCode: number };
      if (StatusCode !== 0) {
        const out = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
        // The engine multiplexes stdout and stderr with 8-byte frame headers; strip them for the message.
        throw new Error(`${cmd.file} ${describeExit(StatusCode)}: ${demux(out).trim()}`);
      }
    } finally {
      mine.delete(container);
      await this.remove(container);
    }
  }

  cancelSetups(name: string): void {
    for (const c of this.setups.get(name) ?? []) void c.kill({ signal: 'SIGKILL' }).catch(() => {});
  }

  private async remove(container: Docker.Container): Promise<void> {
    try {
      await container.remove({ force: true, v: true });
    } catch (err) {
      if (errorStatus(err) !== 404 && errorStatus(err) !== 409) throw err;
    }
    this.live.delete(container.id);
  }

  /** Remove every container this host created that is still there (teardown's last step; Ctrl-C included). */
  async dispose(): Promise<void> {
    await Promise.all(
      [...this.live].map(async (id) => {
        const c = this.docker.getContainer(id);
        await c.unpause().catch(() => {});
        await this.remove(c).catch(() => {});
      }),
    );
  }
}

/** `source:target[:ro]` as testcontainers takes a bind mount. */
function toBindMount(bind: string): { source: string; target: string; mode: 'rw' | 'ro' } {
  const [source, target, mode] = bind.split(':');
  return { source, target, mode: mode === 'ro' ? 'ro' : 'rw' };
}

/** The text of a multiplexed log buffer (8-byte header per frame: stream, 0, 0, 0, size32be). */
function demux(buf: Buffer): string {
  const parts: Buffer[] = [];
  for (let i = 0; i + 8 <= buf.length; ) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return parts.length ? Buffer.concat(parts).toString() : buf.toString();
}
