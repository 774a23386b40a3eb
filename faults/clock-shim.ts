/** The clock faults' one shared fact: which servers the LD_PRELOAD clock shim cannot move. */

/**
 * Why the LD_PRELOAD clock shim of the faults that move clocks cannot move a server of this kind (`etcd`, as
 * cluster/node.ts spells it) at all, or null when it can: the one fact the clock faults refuse by and the checker
 * judges an old run's clock jump by.
 */
export function shimCannotMove(kind: string): string | null {
  return kind === 'etcd'
    ? 'etcd is a Go binary that reads the clock through the vDSO, not libc, so the LD_PRELOAD clock shim cannot move it (and its leases run on monotonic time anyway)'
    : null;
}
