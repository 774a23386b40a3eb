import path from 'node:path';

/**
 * The config of a command that reads its own words (`passThrough: true` in its module): the command line only
 * hands them over, so `check results/x --model=mutex` reaches check-options.ts as the user wrote it.
 */
export interface PassThroughConfig<N extends string> {
  readonly command: N;
  /** `--help` or `-h` among the arguments: the command's own help, exit 0. */
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly resultsDir: string;
}

/** The parse of such a command: its words, untouched. */
export function passThroughParse<N extends string>(command: N): (args: readonly string[]) => PassThroughConfig<N> {
  return (args) => ({
    command,
    help: args.some((a) => a === '--help' || a === '-h'),
    rest: [...args],
    resultsDir: path.resolve('results'),
  });
}
