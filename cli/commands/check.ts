import { CHECK_OPTIONS } from '../../harness/check-options.ts';
import type { CommandModule } from '../command-module.ts';
import { passThroughParse, type PassThroughConfig } from '../pass-through.ts';

/** `fencepost check`: a stored run re-checked, or history files against a model (harness/check-command.ts). */
export const check: CommandModule<PassThroughConfig<'check'>> = {
  summary: 're-check a stored run from its history, or a history file against a model',
  help: {
    about:
      'Re-checks a stored run from its history alone (no server), or checks a history file against a model: our history.jsonl or a Jepsen/Knossos EDN history.',
    usage: [
      'check <run-dir>',
      'check --model=<model> <history file>',
      'check --model=<model> <file|dir>…   (many histories in one process: one line each, then a total)',
    ],
    examples: [
      ['check results/latest', 're-check the newest run; rewrites its results.json'],
      ['check --model=cas-register --initial=0 history.edn', 'a Knossos history against a CAS register'],
      ['check --model=mutex test/corpus/knossos', 'every history under a folder'],
    ],
    docs: 'docs/results.md',
    exitCodes: '0 valid, 1 invalid (anomalies found), 2 unknown, 254 bad arguments or an unreadable history',
  },
  options: CHECK_OPTIONS,
  passThrough: true,
  parse: passThroughParse('check'),
  async run(config) {
    const { checkCommand } = await import('../../harness/check-command.ts');
    return checkCommand(config.rest);
  },
};
