import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { HarnessError } from '../common/errors.ts';
import { PACKAGE_SERVICES, servicesToStop } from './service-stops.ts';
import { AptSession } from './apt-session.ts';
import { onPath, type RequirementSpec } from './requirement.ts';
import type { Shutdown } from '../common/shutdown.ts';

/**
 * What the harness needs on the machine, and the Debian packages that provide it. Like Jepsen installing its
 * DBs on each node: when something is missing and we are root on Debian/Ubuntu, install it with apt; otherwise
 * stop before anything starts and print the exact command. A lock row's library is not named here: the row
 * declares its requirement (requirement.ts) and its caller passes it in beside these names.
 */
export type Requirement = 'redis' | 'valkey' | 'etcd' | 'zk' | 'pg' | 'pgbouncer' | 'cc' | 'nft' | 'debootstrap';

/** Debian 12's backports archive: where valkey-server 8.0.1 is (Debian 13 has it in main). */
export const BOOKWORM_BACKPORTS = 'deb http://deb.debian.org/debian bookworm-backports main';

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

export const REQUIREMENTS: Readonly<Record<Requirement, RequirementSpec>> = {
  redis: { what: 'redis-server', packages: ['redis-server'], present: () => onPath('redis-server') },
  // Optional: only --redis-server=valkey needs it. Not in bookworm's main archive; 8.0.1 in bookworm-backports.
  valkey: {
    what: 'valkey-server (for --redis-server=valkey)',
    packages: ['valkey-server'],
    present: () => onPath('valkey-server'),
    aptSource: { line: BOOKWORM_BACKPORTS, file: '/etc/apt/sources.list.d/bookworm-backports.list' },
  },
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
  pgbouncer: {
    what: 'pgbouncer (a pooler in front of Postgres, for the rows that reach it through one)',
    packages: ['pgbouncer'],
    // /usr/sbin, where Debian puts it, is not on every user's PATH; root's has it.
    present: () => onPath('pgbouncer') || fs.existsSync('/usr/sbin/pgbouncer'),
  },
  cc: { what: 'a C compiler (cc) for the clock shim', packages: ['gcc', 'libc6-dev'], present: () => onPath('cc') },
  nft: {
    what: 'nftables (nft) for server partitions',
    packages: ['nftables'],
    // /usr/sbin is not on every user's PATH; root's has it.
    present: () => onPath('nft') || fs.existsSync('/usr/sbin/nft'),
  },
  debootstrap: {
    what: 'debootstrap (builds the docker node image offline)',
    packages: ['debootstrap'],
    present: () => onPath('debootstrap') || fs.existsSync('/usr/sbin/debootstrap'),
  },
};

/** A requirement by its name (the servers', the tools') or as a lock row declares it (its library). */
export type Need = Requirement | RequirementSpec;

/** The needs not on the machine, each once, in the order given. */
export function missing(needs: Iterable<Need>): RequirementSpec[] {
  return [...new Set([...needs].map((n) => (typeof n === 'string' ? REQUIREMENTS[n] : n)))].filter((r) => !r.present());
}

/**
 * The commands that install `absent`: the apt source lines any of them needs first (a file of their own, so that
 * removing it undoes it), then one apt-get install.
 */
export function installCommand(absent: readonly RequirementSpec[]): string {
  const sources = [...new Map(absent.flatMap((r) => (r.aptSource ? [[r.aptSource.line, r.aptSource]] : []))).values()];
  const install = `sudo apt-get install -y ${absent.flatMap((r) => r.packages).join(' ')}`;
  if (!sources.length) return install;
  return [...sources.map((s) => `echo '${s.line}' | sudo tee ${s.file}`), `sudo apt-get update && ${install}`].join(
    '\n  ',
  );
}

/** apt's candidate version of `pkg` from `apt-cache policy`'s text, or null (unknown to apt, or `(none)`). */
export function candidateOf(policy: string): string | null {
  const v = /^\s*Candidate:\s*(\S+)/m.exec(policy)?.[1];
  return v && v !== '(none)' ? v : null;
}

/** The version apt would install of `pkg` from the sources it knows now, or null. */
function aptCandidate(pkg: string): string | null {
  try {
    return candidateOf(
      execFileSync('apt-cache', ['policy', pkg], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
  } catch {
    return null;
  }
}

function canApt(): boolean {
  return process.getuid?.() === 0 && fs.existsSync('/etc/debian_version') && onPath('apt-get');
}

/** How long apt waits for a dpkg/apt lock someone else holds (unattended-upgrades, minutes after a VM boots). */
export const APT_LOCK_TIMEOUT_S = 300;

/**
 * The apt-get arguments of one provisioning step. Every step waits for a held lock rather than failing at once;
 * `install` keeps the existing version of any config file the user changed and takes the package's default for
 * the rest (no conffile prompt, which would meet stdin=ignore and fail the install).
 */
export function aptArgs(step: 'update' | 'install', packages: readonly string[] = []): string[] {
  const wait = ['-o', `DPkg::Lock::Timeout=${APT_LOCK_TIMEOUT_S}`];
  if (step === 'update') return [...wait, 'update', '-q'];
  return [
    ...wait,
    '-o',
    'Dpkg::Options::=--force-confdef',
    '-o',
    'Dpkg::Options::=--force-confold',
    'install',
    '-y',
    '-q',
    '--no-install-recommends',
    ...packages,
  ];
}

/**
 * The command that keeps `service` from starting at boot: systemd's disable where systemd runs, sysvinit's
 * update-rc.d otherwise. Only for services of packages this very call installed (servicesToStop).
 */
export function disableCommand(service: string, systemd: boolean): { file: string; args: string[] } {
  return systemd
    ? { file: 'systemctl', args: ['disable', '--quiet', service] }
    : { file: 'update-rc.d', args: [service, 'disable'] };
}

/** How long one `service … stop` or disable may take before we give up on it (it has hung on broken units). */
const SERVICE_COMMAND_TIMEOUT_MS = 30_000;

async function runApt(apt: AptSession, args: string[], log: (line: string) => void): Promise<void> {
  let tail = '';
  let saidWaiting = false;
  const code = await apt.run(args, (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4000);
    for (const line of d.toString().split('\n')) {
      // A progress line per package, not apt's whole chatter.
      const m = /^(Unpacking|Setting up) (\S+)/.exec(line);
      if (m) log(`  apt: ${m[1].toLowerCase()} ${m[2]}`);
      // "Waiting for cache lock: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 812 …"
      if (!saidWaiting && /^Waiting for cache lock/.test(line)) {
        saidWaiting = true;
        log(
          `fencepost: another apt/dpkg holds the package lock (${line.replace(/^Waiting for cache lock:\s*/, '').trim()}); waiting up to ${APT_LOCK_TIMEOUT_S} s for it …`,
        );
      }
    }
  });
  if (code !== 0) throw new Error(`apt-get ${args.join(' ')} exited with ${code}:\n${tail}`);
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
  reqs: Iterable<Need>,
  log: (line: string) => void = (l) => console.error(l),
  shutdown?: Shutdown,
): Promise<void> {
  const absent = missing(reqs);
  if (!absent.length) return;
  const packages = absent.flatMap((r) => r.packages);
  const command = installCommand(absent);
  if (!canApt()) {
    throw new HarnessError('missing-dependency', `missing: ${absent.map((r) => r.what).join(', ')}.`, {
      hint: `install them and re-run:\n  ${command}`,
    });
  }
  // A source we would have to add: the user's machine, the user's choice (apt then trusts another archive for good).
  const unsourced = absent.filter((r) => r.aptSource && r.packages.some((p) => aptCandidate(p) === null));
  if (unsourced.length) {
    throw new HarnessError(
      'missing-dependency',
      `missing: ${unsourced.map((r) => r.what).join(', ')}, which apt has no candidate for: its archive is not among this machine's apt sources, and fencepost does not add one itself.`,
      { hint: `add it and install, then re-run:\n  ${command}` },
    );
  }
  log(`fencepost: installing ${packages.join(' ')} with apt (missing: ${absent.map((r) => r.what).join(', ')}) …`);
  const installedBefore = installedPackages(packages);
  const runningBefore = new Set(Object.values(PACKAGE_SERVICES).filter(serviceRunning));
  const apt = new AptSession(log);
  apt.begin(shutdown);
  try {
    await runApt(apt, aptArgs('update'), log);
    await runApt(apt, aptArgs('install', packages), log);
  } catch (err) {
    throw new HarnessError('missing-dependency', `could not install ${packages.join(' ')}: ${(err as Error).message}`, {
      hint: `install them by hand: ${command}`,
    });
  } finally {
    apt.end();
  }
  const still = missing(absent);
  if (still.length) {
    throw new HarnessError(
      'missing-dependency',
      `apt finished but ${still.map((r) => r.what).join(', ')} still missing.`,
      { hint: command },
    );
  }
  // Debian's postinst scripts start and enable the packaged services; ours use their own ports, and a system Redis
  // without a password (or an etcd without auth) must not come back at the next boot. Only what this call
  // installed: a service of a package it installed that was not running before (see service-stops.ts).
  const ours = servicesToStop({
    requested: packages,
    installedBefore,
    installedAfter: installedPackages(packages),
    runningBefore,
  });
  const systemd = fs.existsSync('/run/systemd/system');
  for (const svc of ours) {
    try {
      execFileSync('service', [svc, 'stop'], { stdio: 'ignore', timeout: SERVICE_COMMAND_TIMEOUT_MS });
    } catch {
      // not started (the policy-rc.d above), or no service manager in this container
    }
    const disable = disableCommand(svc, systemd);
    try {
      execFileSync(disable.file, disable.args, { stdio: 'ignore', timeout: SERVICE_COMMAND_TIMEOUT_MS });
      log(`fencepost: the ${svc} service that came with it is stopped and disabled (fencepost runs its own servers)`);
    } catch {
      log(
        `fencepost: could not disable the ${svc} service (${disable.file} ${disable.args.join(' ')} failed); it may start at boot`,
      );
    }
  }
  log('fencepost: packages installed.');
}
