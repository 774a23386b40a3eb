import { SHRINK_OPTIONS } from '../../harness/reproduce-options.ts';
import type { CommandModule } from '../command-module.ts';
import { passThroughParse, type PassThroughConfig } from '../pass-through.ts';

/** `fencepost shrink`: the smallest configuration that still fails the same way (repro/shrink-command.ts). */
export const shrink: CommandModule<PassThroughConfig<'shrink'>> = {
  summary: 'the smallest configuration that still fails the same way, with its rate and bundle',
  help: {
    about:
      "Reduces a failing run's configuration (clients, accounts, fault kinds, shots, duration, think time) while at least --keep of --tries runs still fail the same way, then saves the smallest with its rate and bundle.",
    usage: ['shrink <run-dir> [--tries=5] [--keep=4] [--budget=600] [--seed=<n>]'],
    examples: [['shrink results/redlock/<run> --budget=300', 'at most five minutes of candidates']],
    docs: 'docs/reproductions.md',
    exitCodes:
      '0 a smallest configuration was found, 2 the failure did not recur often enough to shrink, 254 bad arguments',
  },
  options: SHRINK_OPTIONS,
  passThrough: true,
  parse: passThroughParse('shrink'),
  async run(config, shutdown) {
    const { shrinkCommand } = await import('../../repro/shrink-command.ts');
    return shrinkCommand(config.rest, shutdown);
  },
};
