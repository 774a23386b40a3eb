/**
 * What a lock states it assumes of the clocks' rate — the Redlock page: "the local time in every process updates at
 * approximately at the same rate, with a small margin of error compared to the auto-release time of the lock", its
 * reference code's `clock_drift_factor = 0.01` — so a run that moved a clock's rate can say whether it stayed inside
 * the assumption (a loss there is a bug in the lock) or went beyond it (the assumption failing, as stated). A row
 * declares it (locks/<name>/row.ts `clockAssumption`); its strategy's lease takes the same factor off its promise
 * (history/lease-terms.ts `driftFactor`), from the same constant.
 */
export interface ClockAssumption {
  /** How far from real speed a clock's rate may be: 0.01 is a rate within [0.99, 1.01]. */
  readonly maxRateError: number;
  /** Where the lock states it, in words. */
  readonly source: string;
}

/** Redlock's: every Redlock row's drift budget (driftFactor 0.01 × TTL + 2 ms off each lock's validity). */
export const REDLOCK_CLOCKS: ClockAssumption = {
  maxRateError: 0.01,
  source: "the Redlock page's drift budget (driftFactor 0.01)",
};

/**
 * What a run at `rate` (a clock-rate or clock-rate-client shot) says of a lock's stated assumption: beyond it (the
 * assumption failing, a loss is as stated) or inside it (a loss is a bug in the lock). Null for a lock that states
 * none.
 */
export function rateAgainstAssumption(lock: string, rate: number, a: ClockAssumption | undefined): string | null {
  if (!a) return null;
  const off = Math.abs(rate - 1);
  const bound = `rates within ${1 - a.maxRateError}–${1 + a.maxRateError}: ${a.source}`;
  // A hair of float error (1 − 0.99) must not put r = 0.99 outside a 0.01 budget.
  return off > a.maxRateError + 1e-9
    ? `--clock-rate=${rate} is beyond ${lock}'s stated assumption (${bound}): a loss here is the assumption failing, as stated`
    : `--clock-rate=${rate} is inside ${lock}'s stated assumption (${bound}): a loss here is a bug in the lock, not the assumption`;
}
