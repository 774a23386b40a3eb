/**
 * What a `lock-check` step is and how its transcript is kept and shown: every line masked (the run's passwords
 * never reach a terminal) and cut, a process's stderr kept to its last lines, a failed step printed with its exchange.
 */

export interface LockCheckStep {
  name: string;
  passed: boolean | null; // null: not run (an earlier step it depends on failed)
  detail: string;
  exchange: string[];
  /** Stderr lines of a process (by label) not kept past STDERR_LINES_KEPT. */
  dropped?: Record<string, number>;
}

/**
 * A masked copy of a transcript line: the run's passwords never reach a terminal — a JSON `"password"` field, a
 * postgres URL's password, and each of the run's `secrets` in whatever form the lock process printed it (a dict's
 * repr, a URL, a log line).
 */
export function masked(line: string, secrets: readonly string[] = []): string {
  let out = line
    .replace(/("password"\s*:\s*)"(?:[^"\\]|\\.)*"/g, '$1"***"')
    .replace(/(postgres(?:ql)?:\/\/[^:/@"\s]*:)[^@"\s]*@/g, '$1***@');
  for (const s of secrets) if (s) out = out.split(s).join('***');
  return out;
}

/** At most this many of a process's stderr lines are kept per step (the last ones): a flood must not fill memory. */
export const STDERR_LINES_KEPT = 50;
/** A transcript line is cut to this many characters before it is kept (a 512 MB line once reached the terminal). */
const TRANSCRIPT_CHARS = 300;

export const cutLine = (line: string) =>
  line.length > TRANSCRIPT_CHARS ? `${line.slice(0, TRANSCRIPT_CHARS)}… [${line.length} characters]` : line;

export function formatStep(s: LockCheckStep): string {
  const head = `  ${s.passed === null ? 'SKIP' : s.passed ? 'PASS' : 'FAIL'}  ${s.name}${s.detail ? `: ${cutLine(s.detail)}` : ''}`;
  if (s.passed !== false) return head;
  const dropped = Object.entries(s.dropped ?? {}).map(
    ([label, n]) => `${label} ! (${n} earlier stderr lines not shown)`,
  );
  return [head, ...dropped, ...s.exchange].join('\n        ');
}
