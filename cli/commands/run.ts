import { RUN_EXIT_CODES } from '../../common/exit-codes.ts';
import type { Shutdown } from '../../common/shutdown.ts';
import { parseRun, RUN_OPTIONS, type Config } from '../../harness/run-argv.ts';
import { lockRef } from '../../workloads/lock-ref.ts';
import type { CommandModule } from '../command-module.ts';
import { dockerEngineFirst } from '../docker-engine-first.ts';

/**
 * `fencepost [options]` (no subcommand: argv starts with options): a dry run, a scripted scenario, the matrix
 * (--lock=all), or one test. Its options and parse are harness/run-argv.ts's, since every floor that builds runs
 * reads an argv through them; its help is the CLI's global --help.
 */
export const run: CommandModule<Config> = {
  summary: 'a test run',
  help: {
    about: 'a Jepsen-style chaos harness for distributed locks',
    usage: ['[--lock=<lock>] [options]'],
    examples: [
      ['--lock=redlock', 'Redlock for 60 s under its own faults'],
      ['--lock=etcd --nemesis=pause-holder --fencing --time-limit=30', 'a paused holder against a fenced etcd lock'],
      ['--lock=./locks/my-lock.ts --nemesis=restart-empty --time-limit=15', 'your own lock (init writes one)'],
      ['--lock=redis --seed=137715950', "replay a run's fault schedule"],
      ['--lock=all --time-limit=10', 'the whole matrix'],
    ],
    docs: 'README.md, docs/cli.md (every option), docs/faults.md, docs/reading-results.md',
    exitCodes: RUN_EXIT_CODES,
    // Every run option is in exactly one group (a test checks).
    groups: [
      [
        'a run',
        [
          'lock',
          'nemesis',
          'time-limit',
          'concurrency',
          'ttl',
          'think',
          'accounts',
          'fencing',
          'watchdog',
          'seed',
          'backend',
          'redis-server',
          'results',
          'json',
          'verbose',
        ],
      ],
      ['what a verdict needs', ['min-writes', 'max-stall', 'stop-on-lost-update']],
      [
        'fault tuning',
        [
          'nemesis-interval',
          'pause',
          'restart-delay',
          'redis-persistence',
          'retry',
          'clock-offset',
          'etcd-nodes',
          'zk-nodes',
        ],
      ],
      ['reproductions (docs/reproductions.md)', ['scenario', 'shots']],
      ['your own servers (docs/targets.md)', ['target', 'dry-run']],
      ['--lock=all (every lock × fault of the oracle → matrix.html)', ['runs', 'matrix', 'rows']],
      ['other', ['help']],
    ],
  },
  options: RUN_OPTIONS,
  parse: parseRun,
  run: runCommand,
};

async function runCommand(config: Readonly<Config>, shutdown: Shutdown): Promise<number> {
  await dockerEngineFirst(config.backend);
  if (config.dryRun) {
    const { dryRunCommand } = await import('../../harness/target-dry-run.ts');
    return dryRunCommand(config);
  }
  if (config.scenario !== null) {
    const { scenarioCommand } = await import('../../scenario/scenario-command.ts');
    return scenarioCommand(config, shutdown);
  }
  if (lockRef(config.lock).kind === 'all') {
    const { runMatrix } = await import('../../matrix/matrix.ts');
    return runMatrix(config, shutdown);
  }
  const { runTest } = await import('../../harness/run.ts');
  return (await runTest(config, shutdown)).exitCode;
}
