import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { lockRef } from '../../workloads/lock-ref.ts';

/**
 * Why clock-rate-client cannot run a `--lock`'s clients at a rate and prove it did, or null when it can. It proves a
 * shot by the client's own readings of its clocks, asked over the client's IPC channel (workloads/client.ts): a lock
 * that runs inside the Node client (fencepost's own, the npm libraries, a plugin) answers; a lock in another language
 * runs in a process of its own that inherits the shim but answers no clock request (the lock-client protocol has
 * none yet), so a shot there would prove nothing about the process that holds the lock. Go (etcd-go's client) is
 * refused outright: it reads the clock through the vDSO, never libc, so the shim moves neither its clocks nor its
 * timers. The JVM (curator) would be reached, but its timed parks are futex waits the shim does not scale (shim.c).
 */
export function clientClockUnreachable(lock: string): string | null {
  const ref = lockRef(lock);
  if (ref.kind === 'manifest' || ref.kind === 'exec')
    return `--lock=${lock} runs its lock in a process of its own, which answers no clock request (the lock-client protocol has none yet): clock-rate-client proves each shot with the client's own clock readings, and cannot read that process's`;
  if (ref.kind !== 'builtin') return null;
  const row = LOCK_ROWS[ref.name] as LockRow;
  if (row.place.from === 'Go')
    return `--lock=${lock}'s client is a Go binary that reads the clock through the vDSO, not libc: the LD_PRELOAD clock shim moves neither its clocks nor its timers, so clock-rate-client cannot reach it`;
  if (row.foreign) {
    const jvm =
      row.place.from === 'Java' ? "; the JVM's timed parks are futex waits the shim does not scale either" : '';
    return `--lock=${lock} runs its lock in a ${row.place.from} process of its own, which answers no clock request (the lock-client protocol has none yet): clock-rate-client proves each shot with the client's own clock readings, and cannot read that process's${jvm}`;
  }
  return null;
}
