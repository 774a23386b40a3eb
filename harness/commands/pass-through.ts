import path from 'node:path';
import type { CommandSpec } from '../command-spec.ts';

/**
 * The commands that read their own arguments — `check` through its table (check-options.ts), `compare` its run
 * folders, `repro`, `replay` and `shrink` theirs (repro/): the command line only hands them the words. Their options
 * for --help are their own modules' (command-help.ts).
 */
export type PassThrough = 'check' | 'compare' | 'repro' | 'replay' | 'shrink';

export interface PassThroughConfig {
  readonly command: PassThrough;
  /** `--help` or `-h` among the arguments: the command's own help, exit 0. */
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly resultsDir: string;
}

function passThrough(command: PassThrough, summary: string): CommandSpec<PassThroughConfig> {
  return {
    summary,
    options: [],
    parse: (args) => ({
      command,
      help: args.some((a) => a === '--help' || a === '-h'),
      rest: [...args],
      resultsDir: path.resolve('results'),
    }),
  };
}

export const check = passThrough('check', 're-check a stored run from its history, or a history file against a model');
export const compare = passThrough('compare', 'two or more runs side by side → compare.html');
export const repro = passThrough('repro', 'a failing run as a reproduction anyone can run: a bundle folder and .tgz');
export const replay = passThrough(
  'replay',
  "a bundle's or scenario's scripted story run N times → its reproduction rate",
);
export const shrink = passThrough(
  'shrink',
  'the smallest configuration that still fails the same way, with its rate and bundle',
);
