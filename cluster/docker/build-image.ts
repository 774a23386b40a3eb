import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LABEL, NODE_PACKAGES, nodeImageTag } from './image-recipe.ts';
import { createScratch, removeScratch } from './rootfs.ts';

/**
 * The offline builder of the node image: `debootstrap --variant=minbase --include=<packages> bookworm` from the
 * Debian mirror apt is already configured with (the only host this may talk to), then `tar | docker import`.
 * No registry is involved, so it works where `docker build` can't pull debian:bookworm-slim. ~1.5 min.
 *
 *   node --import tsx cluster/docker/build-image.ts              build (skipped when the tag exists)
 *   node --import tsx cluster/docker/build-image.ts --force      build even so (the old image is removed once unused)
 *   node --import tsx cluster/docker/build-image.ts --print-tag  print the tag the backend looks for
 *
 * Interrupted (Ctrl-C, SIGTERM, an error), it kills what it started and removes its ~420 MB scratch root file
 * system on the way out; after a kill -9, `npm run jepsen -- cleanup` removes it.
 */

/** The first Debian (not security) mirror in apt's sources: deb822 `.sources` files or one-line `sources.list`. */
export function aptMirror(): string {
  const files = [
    '/etc/apt/sources.list',
    ...listDir('/etc/apt/sources.list.d').map((f) => path.join('/etc/apt/sources.list.d', f)),
  ];
  for (const file of files) {
    if (!/\.(list|sources)$/.test(file) || !fs.existsSync(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    const urls = file.endsWith('.sources')
      ? [...text.matchAll(/^URIs:\s*(\S+)/gm)].map((m) => m[1])
      : [...text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/gm)].map((m) => m[1]);
    const url = urls.find((u) => /\/debian\/?$/.test(u));
    if (url) return url;
  }
  throw new Error('no Debian mirror found in /etc/apt/sources.list or /etc/apt/sources.list.d/*.{list,sources}');
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The command running now, in its own process group, so an interrupted build can kill it with all it forked. */
let current: ChildProcess | null = null;

function run(cmd: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    current = child;
    child.on('exit', () => {
      if (current === child) current = null;
    });
    let tail = '';
    const onData = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-3000);
      for (const line of d.toString().split('\n'))
        if (/^I: (Retrieving|Validating|Installing|Configuring) (core|base|packages)|^I: Base system/.test(line))
          log(`  ${line}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}:\n${tail}`))));
  });
}

/** uid:gid of `postgres` and the Postgres bin dir, read from the built root file system (they become labels). */
function postgresFacts(root: string): { user: string; bin: string } {
  const line = fs
    .readFileSync(path.join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('the built image has no postgres user');
  const [, , uid, gid] = line.split(':');
  const versions = listDir(path.join(root, 'usr/lib/postgresql')).filter((v) =>
    fs.existsSync(path.join(root, 'usr/lib/postgresql', v, 'bin/postgres')),
  );
  if (!versions.length) throw new Error('the built image has no /usr/lib/postgresql/<v>/bin/postgres');
  return { user: `${uid}:${gid}`, bin: `/usr/lib/postgresql/${versions.sort((a, b) => Number(b) - Number(a))[0]}/bin` };
}

/**
 * Kill the running command's process group and wait (bounded) until it is gone, synchronously: this runs in
 * an 'exit' handler, where nothing asynchronous happens any more.
 */
function killCurrent(): void {
  const pid = current?.pid;
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    return; // gone already
  }
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    Atomics.wait(nap, 0, 0, 50);
  }
}

/** Build the image under `tag` with debootstrap + docker import. Needs root, debootstrap and the docker CLI. */
export async function buildNodeImageOffline(
  tag: string,
  log: (line: string) => void = (l) => console.error(l),
): Promise<void> {
  const mirror = aptMirror();
  const scratch = createScratch();
  const root = scratch.root;
  // Whatever ends the process — the harness's Ctrl-C handler calls process.exit — the scratch folder goes too.
  const onExit = () => {
    killCurrent();
    try {
      removeScratch(scratch.dir);
    } catch (err) {
      console.error(`fencepost: ${(err as Error).message}`);
    }
  };
  process.on('exit', onExit);
  const t0 = performance.now();
  try {
    log(`fencepost: building ${tag} with debootstrap from ${mirror} (packages: ${NODE_PACKAGES.join(' ')}) …`);
    await run(
      'debootstrap',
      ['--variant=minbase', `--include=${NODE_PACKAGES.join(',')}`, 'bookworm', root, mirror],
      log,
    );
    const pg = postgresFacts(root);
    // Package caches and the sample cluster postinst created are dead weight in every container.
    for (const p of ['var/cache/apt/archives', 'var/lib/apt/lists', 'var/lib/postgresql'])
      fs.rmSync(path.join(root, p), { recursive: true, force: true });
    log(`fencepost: importing the root file system into docker as ${tag} …`);
    const changes = [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `LABEL ${LABEL.postgresUser}=${pg.user} ${LABEL.postgresBin}=${pg.bin}`,
    ];
    await run(
      'sh',
      [
        '-c',
        `tar -C "$1" -c . | docker import ${changes.map((c) => `--change '${c}'`).join(' ')} - "$2" >/dev/null`,
        'sh',
        root,
        tag,
      ],
      log,
    );
    log(`fencepost: ${tag} built in ${((performance.now() - t0) / 1000).toFixed(0)} s.`);
  } finally {
    killCurrent();
    process.off('exit', onExit);
    removeScratch(scratch.dir);
  }
}

/** The id of the image tagged `tag`, or null when there is none (or no docker CLI/engine to ask). */
export function imageId(tag: string): string | null {
  const r = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', tag], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

async function main(argv: string[]): Promise<void> {
  const tag = nodeImageTag();
  if (argv.includes('--print-tag')) {
    console.log(tag);
    return;
  }
  const old = imageId(tag);
  if (old && !argv.includes('--force')) {
    console.error(
      `fencepost: ${tag} exists already (${old.slice(0, 19)}); nothing to build. To build it again: node --import tsx cluster/docker/build-image.ts --force`,
    );
    return;
  }
  // Without a handler a signal ends node on the spot, and the 'exit' clean-up above never runs.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\nfencepost: ${signal} — stopping the build and removing its root file system …`);
      process.exit(130);
    });
  }
  await buildNodeImageOffline(tag);
  const now = imageId(tag);
  if (old && now && old !== now) {
    // docker import moved the tag; the old image is now untagged dead weight, unless a container still uses it.
    const rmi = spawnSync('docker', ['rmi', old], { encoding: 'utf8' });
    console.error(
      rmi.status === 0
        ? `fencepost: removed the previous ${tag} (${old.slice(0, 19)}).`
        : `fencepost: kept the previous image ${old.slice(0, 19)}: ${rmi.stderr.trim()}`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(`fencepost: ${(err as Error).message}`);
    process.exit(1);
  });
}
