import type { Op } from './op.ts';

/**
 * Errors with which the resource refuses a write as stale: `stale-token` (a fenced write whose token is older
 * than one the row has seen) and `version-conflict` (the postgres strategy: the row changed since the read —
 * the version column is its fence).
 */
export const STALE_REFUSALS: ReadonlySet<string> = new Set(['stale-token', 'version-conflict']);

/** A `write` the resource refused as stale: the fence doing its job. */
export function isStaleWriteRefusal(op: Op): boolean {
  return op.f === 'write' && op.type === 'fail' && op.error !== undefined && STALE_REFUSALS.has(op.error);
}
