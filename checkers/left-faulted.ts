/**
 * A server of a target whose injection the run could not undo: its heal failed to the end (audit R3: a failed
 * resume left Redis stopped while the run said VALID, exit 0). Stored in test.json's `target.leftFaulted`.
 */
export interface LeftFaultedServer {
  readonly server: string;
  readonly action: string;
  /** The command that heals it, as the run's command log and `--dry-run` spell it. */
  readonly heal: string;
  readonly error: string;
}

/**
 * The sentence a run says of such a server, and the reason its verdict is unknown: a run that could not undo its
 * faults on someone's server is no evidence of safety, and its owner must hear how to heal it.
 */
export function leftFaultedSentence(l: Pick<LeftFaultedServer, 'server' | 'heal'>): string {
  return `${l.server}: the server may still be stopped: ${l.heal}`;
}

/** The entries of a test record's `target.leftFaulted` that read as such (a damaged one is skipped, not guessed). */
export function leftFaultedOf(target: unknown): LeftFaultedServer[] {
  const raw = (target as { leftFaulted?: unknown } | undefined)?.leftFaulted;
  if (!Array.isArray(raw)) return [];
  return raw.filter((l): l is LeftFaultedServer => !!l && typeof l.server === 'string' && typeof l.heal === 'string');
}
