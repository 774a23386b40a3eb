import { EXIT, type ExitCode } from './exit-codes.ts';

/**
 * An error the user can act on: it carries a kind, the exit code the CLI should end with, and what to do next.
 * Anything that is not a HarnessError is a crash of ours (exit 255).
 */
export type HarnessErrorKind =
  | 'bad-arguments'
  | 'missing-dependency'
  | 'node-start'
  | 'node-timeout'
  | 'run-dir'
  | 'interrupted';

export class HarnessError extends Error {
  readonly kind: HarnessErrorKind;
  readonly exitCode: ExitCode;
  /** The next step for the user ("run: apt-get install redis-server"). */
  readonly hint?: string;

  constructor(
    kind: HarnessErrorKind,
    message: string,
    opts: { hint?: string; exitCode?: ExitCode; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'HarnessError';
    this.kind = kind;
    this.hint = opts.hint;
    this.exitCode =
      opts.exitCode ?? (kind === 'bad-arguments' || kind === 'missing-dependency' ? EXIT.badArguments : EXIT.crashed);
  }
}
