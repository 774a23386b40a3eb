import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { HarnessError } from '../common/errors.ts';
import { PACKAGE_SERVICES, servicesToStop } from './service-stops.ts';

/**
 * What the harness needs on the machine, and the Debian packages that provide it. Like Jepsen installing its
 * DBs on each node: when something is missing and we are root on Debian/Ubuntu, install it with apt; otherwise
 * stop before anything starts and print the exact command.
 */
export type Requirement = 'redis' | 'etcd' | 'zk' | 'pg' | 'cc' | 'debootstrap';

interface RequirementSpec {
  what: string;
  packages: string[];
  present: () => boolean;
}

function onPath(bin: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => {
    try {
      fs.accessSync(`${dir}/${bin}`, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The newest installed PostgreSQL server's bin dir (`/usr/lib/postgresql/<v>/bin`), or null. */
export function findPostgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(`${root}/${v}/bin/postgres`))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? `${root}/${versions[0]}/bin` : null;
}

export function postgresBinDir(): string {
  const dir = findPostgresBinDir();
  if (!dir)
    throw new HarnessError(
      'missing-dependency',
      'PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin.',
      { hint: 'apt-get install -y postgresql' },
    );
  return dir;
}

export const REQUIREMENTS: Record<Requirement, RequirementSpec> = {
  redis: { what: 'redis-server', packages: ['redis-server'], present: () => onPath('redis-server') },
  etcd: { what: 'etcd', packages: ['etcd-server', 'etcd-client'], present: () => onPath('etcd') },
  zk: {
    what: 'ZooKeeper (java + /usr/share/java/zookeeper.jar)',
    packages: ['zookeeper'],
    present: () => onPath('java') && fs.existsSync('/usr/share/java/zookeeper.jar'),
  },
  pg: {
    what: 'PostgreSQL server (initdb, postgres)',
    packages: ['postgresql'],
    present: () => findPostgresBinDir() !== null,
  },
  cc: { what: 'a C compiler (cc) for the clock shim', packages: ['gcc', 'libc6-dev'], present: () => onPath('cc') },
  debootstrap: {
    what: 'debootstrap (builds the docker node image offline)',
    packages: ['debootstrap'],
    present: () => onPath('debootstrap') || fs.existsSync('/usr/sbin/debootstrap'),
  },
};

export function missing(reqs: Iterable<Requirement>): Requirement[] {
  return [...new Set(reqs)].filter((r) => !REQUIREMENTS[r].present());
}

function canApt(): boolean {
  return process.getuid?.() === 0 && fs.existsSync('/etc/debian_version') && onPath('apt-get');
}

function runApt(args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('apt-get', args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const onData = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      for (const line of d.toString().split('\n')) {
        // A progress line per package, not apt's whole chatter.
        const m = /^(Unpacking|Setting up) (\S+)/.exec(line);
        if (m) log(`  apt: ${m[1].toLowerCase()} ${m[2]}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`apt-get ${args.join(' ')} exited with ${code}:\n${tail}`)),
    );
  });
}

/** Which of `packages` dpkg lists as installed ("ii"); a package dpkg never heard of is simply not listed. */
function installedPackages(packages: string[]): Set<string> {
  let out = '';
  try {
    out = execFileSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\\n', ...packages], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (err) {
    // Exit 1 when some package is unknown; the known ones are still printed.
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  return new Set(
    out
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter(([name, status]) => name && status?.startsWith('ii'))
      .map(([name]) => name.replace(/:.*$/, '')),
  );
}

/** Whether a system service says it runs (`service <name> status` exits 0); false without a service manager. */
function serviceRunning(service: string): boolean {
  try {
    execFileSync('service', [service, 'status'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Make sure every requirement is present; install with apt when root on Debian, else throw a
 * `missing-dependency` HarnessError (exit 254) naming the command to run.
 */
export async function provision(
  reqs: Iterable<Requirement>,
  log: (line: string) => void = (l) => console.error(l),
): Promise<void> {
  const absent = missing(reqs);
  if (!absent.length) return;
  const packages = absent.flatMap((r) => REQUIREMENTS[r].packages);
  const command = `sudo apt-get install -y ${packages.join(' ')}`;
  if (!canApt()) {
    throw new HarnessError('missing-dependency', `missing: ${absent.map((r) => REQUIREMENTS[r].what).join(', ')}.`, {
      hint: `install them and re-run:\n  ${command}`,
    });
  }
  log(
    `fencepost: installing ${packages.join(' ')} with apt (missing: ${absent.map((r) => REQUIREMENTS[r].what).join(', ')}) …`,
  );
  const installedBefore = installedPackages(packages);
  const runningBefore = new Set(Object.values(PACKAGE_SERVICES).filter(serviceRunning));
  try {
    await runApt(['update', '-q'], log);
    await runApt(['install', '-y', '-q', '--no-install-recommends', ...packages], log);
  } catch (err) {
    throw new HarnessError('missing-dependency', `could not install ${packages.join(' ')}: ${(err as Error).message}`, {
      hint: `install them by hand: ${command}`,
    });
  }
  const still = missing(absent);
  if (still.length) {
    throw new HarnessError(
      'missing-dependency',
      `apt finished but ${still.map((r) => REQUIREMENTS[r].what).join(', ')} still missing.`,
      { hint: command },
    );
  }
  // Debian's postinst scripts may start the packaged services; ours use their own ports. Stop only what this
  // call started: a service of a package it installed that was not running before (see service-stops.ts).
  const stops = servicesToStop({
    requested: packages,
    installedBefore,
    installedAfter: installedPackages(packages),
    runningBefore,
  });
  for (const svc of stops) {
    try {
      execFileSync('service', [svc, 'stop'], { stdio: 'ignore' });
      log(`fencepost: stopped the ${svc} service that installing it started (fencepost runs its own servers)`);
    } catch {
      // not started, or no service manager in this container
    }
  }
  log('fencepost: packages installed.');
}
