import { REPRO_OPTIONS } from '../../harness/reproduce-options.ts';
import type { CommandModule } from '../command-module.ts';
import { passThroughParse, type PassThroughConfig } from '../pass-through.ts';

/** `fencepost repro`: a failing run as a bundle anyone can run (repro/repro-command.ts). */
export const repro: CommandModule<PassThroughConfig<'repro'>> = {
  summary: 'a failing run as a reproduction anyone can run: a bundle folder and .tgz',
  help: {
    about:
      'Turns a failing run into a reproduction anyone can run: a folder and its .tgz with the failure scripted as a scenario, the failing window of the history, the lock, options, seed and versions, and a README telling the story with the one command that replays it. No secret goes into it.',
    usage: ['repro <run-dir> [--out=<dir>]'],
    examples: [
      [
        'repro results/redlock/<run>',
        'the bundle beside the run: <run>/repro-redlock-<run>/ and <run>/repro-redlock-<run>.tgz',
      ],
    ],
    docs: 'docs/reproductions.md',
    exitCodes: '0 the bundle was written, 254 the folder is not a failing run',
  },
  options: REPRO_OPTIONS,
  passThrough: true,
  parse: passThroughParse('repro'),
  async run(config) {
    const { reproCommand } = await import('../../repro/repro-command.ts');
    return reproCommand(config.rest);
  },
};
