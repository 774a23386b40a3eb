import { REPLAY_OPTIONS } from '../../harness/reproduce-options.ts';
import type { CommandModule } from '../command-module.ts';
import { passThroughParse, type PassThroughConfig } from '../pass-through.ts';

/** `fencepost replay`: a bundle's story run N times, its reproduction rate (repro/replay-command.ts). */
export const replay: CommandModule<PassThroughConfig<'replay'>> = {
  summary: "a bundle's or scenario's scripted story run N times → its reproduction rate",
  help: {
    about:
      "Runs a bundle's (or a scenario file's) scripted story --runs times on fresh servers, each run checked and reported, and prints its reproduction rate with a Wilson 95 % interval; runs that could not follow their script are counted apart.",
    usage: ['replay <bundle folder | bundle.tgz | scenario.json> [--runs=10] [--lock=…] [--fencing]'],
    examples: [
      ['replay results/redlock/<run>/repro.tgz', 'does it still fail? (exit 1: yes; 0: no longer)'],
      ['replay scenarios/paused-holder.json --lock=etcd --fencing', 'a shipped story against another lock'],
    ],
    docs: 'docs/reproductions.md',
    exitCodes:
      '0 no followed run failed, 1 a followed run failed (reproduced), 2 no run could follow its script, 254 a damaged bundle or bad arguments',
  },
  options: REPLAY_OPTIONS,
  passThrough: true,
  parse: passThroughParse('replay'),
  async run(config, shutdown) {
    const { replayCommand } = await import('../../repro/replay-command.ts');
    return replayCommand(config.rest, shutdown);
  },
};
