import { shimCannotMove } from '../clock-shim.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { lockServerKind, type LockServerCounts } from '../../nemesis/lock-servers.ts';
import { lockRef } from '../../workloads/lock-ref.ts';

/**
 * Why clock-rate cannot run the clock of a `--lock`'s servers at a rate and prove it did, or null when it can. Redis
 * (a probe key's PTTL) and ZooKeeper (`mntr`'s uptime, the clock its sessions expire by) are probed; etcd is a Go
 * binary the shim cannot move. Postgres keeps every run's accounts, so every lock seems to sit on it: only a lock
 * whose lease runs on the server's clock (its row's `databaseClock`: sql-lease-dbtime) gives the rate anything to act
 * on — an advisory lock ends with its session, a client-time lease by its clients' clocks, whatever the server's runs.
 */
export function clockRateRefusal(servers: LockServerCounts, lock: string): string | null {
  const kind = lockServerKind(servers);
  if (kind === 'redis' || kind === 'zk') return null;
  if (kind === 'etcd') return `--lock=${lock}'s lock is held by its etcd servers: ${shimCannotMove('etcd')}`;
  const ref = lockRef(lock);
  const row = ref.kind === 'builtin' ? (LOCK_ROWS[ref.name] as LockRow) : undefined;
  if (row?.databaseClock) return null;
  if (row && row.place.store !== 'Postgres' && !row.noLease)
    return `--lock=${lock} keeps its lock in ${row.place.store}: clock-rate has no probe for its server's clock yet`;
  const why = row
    ? (row.noLease ?? "its lease is stamped and compared on its clients' clocks")
    : 'a lock of your own states no lease on the database clock';
  return `--lock=${lock}'s lock times no lease by the Postgres server's clock (${why}): clock-rate runs that clock at a rate, which plays no part in it`;
}
