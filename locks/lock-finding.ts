import { headingAnchor } from '../common/heading-anchor.ts';
import { LOCK_ROWS, type BuiltinLock } from './registry.ts';

/**
 * What the docs say of one lock, for a reader who has just run it: where its own story is (its findings.md section
 * for an npm library, locks.md for the rest), what to do about it (its row's findings words), and whether it hands
 * out a fencing token. One spelling for the findings page's heading, the choosing page's links and the "what to do"
 * line of a run's summary and report (report/next-step.ts), so a link from any of them lands on the same section.
 */
export interface LockFinding {
  readonly lock: string;
  /** The docs page and anchor, relative to docs/: `findings.md#redlock-v4--…`, `locks.md`, `your-lock.md`. */
  readonly doc: string;
  /** What to do: docs/findings.md's for an npm library, the row's own for a Python, Java or Go one; else absent. */
  readonly advice?: string;
  /**
   * Whether the lock hands out a fencing token (its oracle's fencing cell: the CLI refuses `--fencing` without one);
   * `own-fence` for a lock whose write is fenced without `--fencing` (postgres: the version column is the token);
   * `no-lock` for the baseline that takes none; `unknown` for a lock fencepost has no row for (a plugin, a manifest).
   */
  readonly token: 'token' | 'own-fence' | 'none' | 'no-lock' | 'unknown';
}

/** The findings.md heading of an npm library's section: its lock name and the package it pins. */
export function findingsHeading(lock: string, pkg: string): string {
  return `\`${lock}\` — ${pkg}`;
}

/** Where a built-in lock's own story is, relative to docs/. */
export function lockDoc(lock: BuiltinLock): string {
  const row = LOCK_ROWS[lock];
  const findings = 'findings' in row ? row.findings : undefined;
  if (findings) return `findings.md#${headingAnchor(findingsHeading(lock, findings.package))}`;
  return row.place.from === 'fencepost'
    ? 'locks.md'
    : `locks.md#${headingAnchor('The real libraries (Python, Java, Go)')}`;
}

/** What the docs say of `lock`: a built-in's row, or the page on writing one's own lock for any other. */
export function lockFinding(lock: string): LockFinding {
  if (!Object.hasOwn(LOCK_ROWS, lock)) return { lock, doc: 'your-lock.md', token: 'unknown' };
  const name = lock as BuiltinLock;
  const row = LOCK_ROWS[name];
  const findings = 'findings' in row ? row.findings : undefined;
  const fencing = row.faults.fencing;
  const token =
    row.faults['no-fault'].expect === 'lost' && fencing.expect === 'n/a'
      ? 'no-lock'
      : fencing.expect === 'refuse'
        ? 'none'
        : fencing.decided === 'construction' && fencing.expect === 'safe'
          ? 'own-fence'
          : 'token';
  const advice = findings?.advice ?? ('foreign' in row ? row.foreign.advice : undefined);
  return { lock, doc: lockDoc(name), token, ...(advice ? { advice } : {}) };
}
