import type { RunFiles } from '../store/run-dir.ts';
import { faultSummary } from '../store/test-json.ts';

/**
 * Why two runs' counts cannot be set against each other: a run three times as long finds about three times the
 * lost updates, another backend or another fault schedule tests another thing. `compare` coloured "8 → 2 lost
 * updates" green between a 60 s local run and a 20 s Docker run; with a reason here it warns instead and colours
 * no count better or worse. What the comparison is *for* (another lock, fencing on or off) is not a reason.
 */
export function notComparable(runs: readonly RunFiles[]): string[] {
  const [base, ...rest] = runs;
  if (!base) return [];
  const reasons: string[] = [];
  const facts: [string, (r: RunFiles) => string | null][] = [
    ['time limit', (r) => (typeof r.test.config.timeLimitS === 'number' ? `${r.test.config.timeLimitS} s` : null)],
    ['backend', (r) => (typeof r.test.config.backend === 'string' ? r.test.config.backend : null)],
    ['faults', (r) => faultSummary(r.test, Array.isArray(r.results.faults) ? r.results.faults.map((f) => f.f) : [])],
    ['clients', (r) => (typeof r.test.config.concurrency === 'number' ? String(r.test.config.concurrency) : null)],
  ];
  for (const [name, of] of facts) {
    const b = of(base);
    rest.forEach((r, i) => {
      const v = of(r);
      if (b !== null && v !== null && v !== b) reasons.push(`${name}: ${b} in run 1, ${v} in run ${i + 2}`);
    });
  }
  // Same limit, different length: a run stopped at its first lost update, or one that ended early.
  const ms = (r: RunFiles) => (typeof r.results.durationMs === 'number' ? r.results.durationMs : null);
  const bm = ms(base);
  rest.forEach((r, i) => {
    const m = ms(r);
    if (bm && m && Math.abs(m - bm) / Math.max(m, bm) > 0.2 && !reasons.some((x) => x.startsWith('time limit')))
      reasons.push(`duration: ${(bm / 1000).toFixed(1)} s in run 1, ${(m / 1000).toFixed(1)} s in run ${i + 2}`);
  });
  return reasons;
}
