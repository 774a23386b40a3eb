import type { CommandModule } from '../command-module.ts';
import { passThroughParse, type PassThroughConfig } from '../pass-through.ts';

/** `fencepost compare`: runs side by side (harness/compare-command.ts). */
export const compare: CommandModule<PassThroughConfig<'compare'>> = {
  summary: 'two or more runs side by side → compare-<run>-vs-<run>.html',
  help: {
    about:
      'Writes compare-<run>-vs-<run>.html beside the first run (one page per set of runs: a later compare never overwrites it): the runs side by side, what changed, and a warning when their counts are not comparable (another time limit or duration, backend, fault list or number of clients).',
    usage: ['compare <run-dir> <run-dir> […]'],
    examples: [['compare results/redlock/<run> results/redlock/<other run>', 'before and after a change']],
    docs: 'docs/results.md',
    exitCodes: '0 compared (whatever changed), 254 fewer than two run folders, or one without results',
  },
  options: [],
  passThrough: true,
  parse: passThroughParse('compare'),
  async run(config) {
    const { compareCommand } = await import('../../harness/compare-command.ts');
    return compareCommand(config.rest, config);
  },
};
