import type { AnyCluster } from '../cluster/cluster.ts';
import { debianPackageVersions, libraryVersions } from '../cluster/versions.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { RunNeeds } from '../nemesis/fault-registry.ts';
import { RUN_FORMAT } from '../store/run-format.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import { lockLibraryOf } from '../workloads/foreign/builtin-build.ts';
import { foreignLockRecord, type ForeignLockRecord } from '../workloads/foreign/lock-identity.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { runOptions, type Config } from './run-argv.ts';

/** What the run is, as its test record says it (completed later: server versions, skipped faults). */
export function testRecord(
  config: Readonly<Config>,
  strategy: ResolvedStrategy,
  faults: FaultName[],
  faultNeeds: RunNeeds,
  cluster: AnyCluster,
): StoredTestJson {
  return {
    format: RUN_FORMAT,
    lock: config.lock,
    strategy: {
      name: strategy.name,
      token: strategy.token,
      exclusive: strategy.exclusive,
      servers: strategy.servers,
      // Always written, null included: a record without it is from before the promise checker read it.
      lease: strategy.lease,
    },
    argv: config.argv,
    seed: config.seed,
    startedAt: new Date().toISOString(),
    faults,
    config: runOptions(config),
    versions: libraryVersions(),
    nodes: cluster.nodes.map((n) => ({ name: n.name, port: n.port })),
    clientNetwork: faultNeeds.clientProxies ? 'proxied' : 'direct',
    ...foreignLockOf(config.lock, strategy),
  };
}

/** For a lock in another language: which build of it ran (lock-identity.ts), its library's Debian packages included. */
function foreignLockOf(lock: string, strategy: ResolvedStrategy): { foreignLock?: ForeignLockRecord } {
  const library = lockLibraryOf(lock)?.library;
  const record = foreignLockRecord(strategy, library ? debianPackageVersions(library.packages) : {});
  return record ? { foreignLock: record } : {};
}
