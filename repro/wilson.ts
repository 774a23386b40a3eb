/**
 * The Wilson score interval of a reproduction rate: k failures in n runs that followed their script, at 95 %.
 * Unlike k/n ± something it stays inside [0, 1] and says something at 0/n and n/n, where a rate is most often
 * quoted (0/10 → 0–28 %, close to the rule of three's 30 %; 10/10 → 72–100 %). Pure.
 */
export interface RateInterval {
  k: number;
  n: number;
  low: number;
  high: number;
}

const Z95 = 1.959963984540054;

export function wilson(k: number, n: number, z = Z95): RateInterval {
  if (n <= 0) return { k, n, low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { k, n, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

const pct = (x: number) => `${Math.round(x * 100)}`;

/** `fails 7/10 (Wilson 95 %: 40–89 %)`; another verb where what is counted is no failure (`shows it`, `clean`). */
export function rateText(r: RateInterval, verb = 'fails'): string {
  return `${verb} ${r.k}/${r.n} (Wilson 95 %: ${pct(r.low)}–${pct(r.high)} %)`;
}

/** Whether two rates' intervals overlap: a known bug's rate tonight against the one it was recorded with. */
export function intervalsOverlap(a: RateInterval, b: RateInterval): boolean {
  return a.low <= b.high && b.low <= a.high;
}
