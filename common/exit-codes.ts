/** Jepsen's exit codes; users' CI scripts depend on them (docs/cli.md#exit-codes). */
export const EXIT = {
  valid: 0,
  invalid: 1,
  unknown: 2,
  badArguments: 254,
  crashed: 255,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit codes in one line, as every --help ends. 130: interrupted by a signal (common/shutdown.ts). */
export const EXIT_CODE_LINE = `exit codes: ${EXIT.valid} valid, ${EXIT.invalid} invalid (anomalies found), ${EXIT.unknown} unknown, 130 interrupted, ${EXIT.badArguments} bad arguments, ${EXIT.crashed} the harness crashed`;
