/**
 * Which system services provisioning may stop and disable after `apt-get install`. Debian's postinst scripts
 * start and enable the packaged services (a system Redis on 6379, a postgresql cluster on 5432); ours use their
 * own ports, so a service we caused to start is a waste of memory and, at the next boot, a Redis without a
 * password — but one the user already had is theirs: a database they run, that `service … stop` would take down.
 */

/** The service a package's postinst may start, for the packages provisioning installs. */
export const PACKAGE_SERVICES: Readonly<Record<string, string>> = {
  'redis-server': 'redis-server',
  'valkey-server': 'valkey-server',
  'etcd-server': 'etcd',
  zookeeper: 'zookeeper',
  postgresql: 'postgresql',
  pgbouncer: 'pgbouncer',
};

export interface InstallFacts {
  /** The packages this call asked apt for. */
  requested: readonly string[];
  /** Of those, the ones dpkg listed as installed before the call. */
  installedBefore: ReadonlySet<string>;
  /** Of those, the ones dpkg lists as installed after it. */
  installedAfter: ReadonlySet<string>;
  /** Services that answered `service <name> status` with "running" before the call. */
  runningBefore: ReadonlySet<string>;
}

/**
 * Only services of packages this very call installed (absent before, present after), and only when that
 * service was not already running before the install (a user's own server under the same service name).
 */
export function servicesToStop(facts: InstallFacts): string[] {
  const out: string[] = [];
  for (const pkg of facts.requested) {
    const service = PACKAGE_SERVICES[pkg];
    if (!service || out.includes(service)) continue;
    if (facts.installedBefore.has(pkg) || !facts.installedAfter.has(pkg)) continue;
    if (facts.runningBefore.has(service)) continue;
    out.push(service);
  }
  return out;
}
