/** Jepsen's exit codes; users' CI scripts depend on them (see README, "Exit codes"). */
export const EXIT = {
  valid: 0,
  invalid: 1,
  unknown: 2,
  badArguments: 254,
  crashed: 255,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
