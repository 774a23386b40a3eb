/** Number formats every page shares, so a latency reads the same in a report, the index and a comparison. */

/** Milliseconds with precision that fits their size: 0.42 ms, 12.3 ms, 1,234 ms. */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

/** A point on the run's clock (ms since start) as seconds: `12.345 s`. */
export function fmtAt(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '?';
  return `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 2)} s`;
}

export function fmtCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

/** `1 lost update`, `2 lost updates`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmtCount(n)} ${n === 1 ? one : many}`;
}

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A signed delta: `+5`, `−3` (a real minus sign, so columns line up in a proportional font). */
export function fmtSigned(n: number): string {
  return n < 0 ? `−${fmtCount(-n)}` : `+${fmtCount(n)}`;
}
