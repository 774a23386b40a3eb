/** Jepsen's exit codes; users' CI scripts depend on them (docs/cli.md#exit-codes). */
export const EXIT = {
  valid: 0,
  invalid: 1,
  unknown: 2,
  badArguments: 254,
  crashed: 255,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What a run's codes mean (its --help and the CLI's end with them; each subcommand has its own: cli/commands/). */
export const RUN_EXIT_CODES = `${EXIT.valid} valid, ${EXIT.invalid} invalid (anomalies found), ${EXIT.unknown} unknown, ${EXIT.badArguments} bad arguments`;

/**
 * The codes every command shares, after its own: a signal stops any of them (common/shutdown.ts) and an error
 * nothing caught is a crash of any of them (cli.ts).
 */
const EVERY_COMMAND = `130 interrupted, ${EXIT.crashed} the harness crashed`;

/** A subcommand's exit codes as its --help ends: its own meanings (`0 …, 254 …`), then the two every command has. */
export function exitCodeLine(own: string): string {
  return `exit codes: ${own}, ${EVERY_COMMAND}`;
}
