import { HarnessError } from './common/errors.ts';
import { EXIT } from './common/exit-codes.ts';
import { OPTIONS, parseCommandLine, type CommandLine } from './harness/command-line.ts';
import { npmCommandLine, swallowedByNpm } from './harness/npm-swallowed.ts';
import { CLI } from './common/cli-name.ts';
import { Shutdown } from './common/shutdown.ts';
import { lockRef } from './workloads/lock-ref.ts';

const OPTION_NAMES = OPTIONS.map((o) => o.name);

/** Subcommands are loaded on demand so `--help` and argument errors answer at once. */
async function dispatch(config: Readonly<CommandLine>, shutdown: Shutdown): Promise<number> {
  await dockerEngineFirst(config);
  switch (config.command) {
    case 'init': {
      const { initCommand } = await import('./harness/init-command.ts');
      return initCommand(process.cwd());
    }
    case 'doctor': {
      const { doctor, formatDoctor } = await import('./harness/doctor.ts');
      const report = await doctor(config, shutdown);
      console.log(config.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
      return EXIT.valid;
    }
    case 'lock-check': {
      const { lockCheckCommand } = await import('./harness/lock-check-command.ts');
      return lockCheckCommand(config, shutdown);
    }
    case 'cleanup': {
      const { cleanup } = await import('./harness/cleanup.ts');
      await cleanup(config.resultsDir, console.log, { data: config.data });
      if (config.target) {
        const { cleanupTarget } = await import('./harness/target-cleanup.ts');
        return cleanupTarget(config.target, config.resultsDir, console.log);
      }
      return EXIT.valid;
    }
    case 'check': {
      const { checkCommand } = await import('./harness/check-command.ts');
      return checkCommand(config.rest);
    }
    case 'compare': {
      const { compareCommand } = await import('./harness/compare-command.ts');
      return compareCommand(config.rest, config);
    }
    case 'repro': {
      const { reproCommand } = await import('./repro/repro-command.ts');
      return reproCommand(config.rest);
    }
    case 'replay': {
      const { replayCommand } = await import('./repro/replay-command.ts');
      return replayCommand(config.rest, shutdown);
    }
    case 'shrink': {
      const { shrinkCommand } = await import('./repro/shrink-command.ts');
      return shrinkCommand(config.rest, shutdown);
    }
    case 'serve': {
      const { serveCommand } = await import('./harness/serve-command.ts');
      return serveCommand(config, shutdown);
    }
    case 'nightly': {
      const { nightlyCommand } = await import('./nightly/nightly.ts');
      return nightlyCommand(config, shutdown);
    }
    case 'target': {
      const { targetCommand } = await import('./harness/target-check-command.ts');
      return targetCommand(config.rest);
    }
    case 'run':
      return runCommand(config, shutdown);
  }
}

/** A command that starts servers with --backend=docker: no engine is a usage error (254), before any run folder. */
async function dockerEngineFirst(config: Readonly<CommandLine>): Promise<void> {
  const runsServers =
    config.command === 'run' ||
    config.command === 'doctor' ||
    config.command === 'lock-check' ||
    (config.command === 'nightly' && config.rest[0] !== 'merge' && config.emit === null);
  if (!runsServers || config.backend !== 'docker') return;
  const { connectDockerEngine } = await import('./cluster/docker/engine.ts');
  await connectDockerEngine();
}

/** The run command: a dry run, a scripted scenario, the matrix (--lock=all), or one test. */
async function runCommand(config: Extract<CommandLine, { command: 'run' }>, shutdown: Shutdown): Promise<number> {
  if (config.dryRun) {
    const { dryRunCommand } = await import('./harness/target-dry-run.ts');
    return dryRunCommand(config);
  }
  if (config.scenario !== null) {
    const { scenarioCommand } = await import('./scenario/scenario-command.ts');
    return scenarioCommand(config, shutdown);
  }
  if (lockRef(config.lock).kind === 'all') {
    const { runMatrix } = await import('./matrix/matrix.ts');
    return runMatrix(config, shutdown);
  }
  const { runTest } = await import('./harness/run.ts');
  return (await runTest(config, shutdown)).exitCode;
}

/** `npm run jepsen --lock=etcd` (the `--` forgotten): npm kept the option, fencepost never saw it. Said first. */
function warnIfNpmSwallowed(): void {
  const swallowed = swallowedByNpm(process.env, npmCommandLine(), OPTION_NAMES);
  if (!swallowed.length) return;
  console.error(
    `fencepost: warning: npm took ${swallowed.join(' ')} for itself (it came before \`--\`), so fencepost never saw ${swallowed.length > 1 ? 'them' : 'it'}: this command runs without ${swallowed.length > 1 ? 'them' : 'it'}.`,
  );
  console.error(`  → ${CLI} ${[...swallowed, ...process.argv.slice(2)].join(' ')}   (Ctrl-C this one)`);
}

async function main(argv: string[]): Promise<number> {
  warnIfNpmSwallowed();
  let config: Readonly<CommandLine>;
  try {
    config = parseCommandLine(argv);
  } catch (err) {
    return report(err);
  }
  if (config.help) {
    const { helpFor } = await import('./harness/command-help.ts');
    console.log(helpFor(config.command));
    return EXIT.valid;
  }
  const shutdown = new Shutdown().install().catchStrays();
  let code: number;
  try {
    code = await dispatch(config, shutdown);
  } catch (err) {
    // After a stray error the command's own failure is a consequence of the teardown: the stray decides.
    if (shutdown.stray) return shutdown.crash(shutdown.stray.error);
    await shutdown.runAll('error');
    return report(err);
  }
  return shutdown.stray ? shutdown.crash(shutdown.stray.error) : code;
}

function report(err: unknown): number {
  if (err instanceof HarnessError) {
    console.error(`fencepost: ${err.message}`);
    if (err.hint) console.error(`  → ${err.hint}`);
    return err.exitCode;
  }
  console.error('fencepost: the harness crashed (this is a bug of ours):');
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  return EXIT.crashed;
}

// The event loop drained while the command still had no result: something it awaits can never settle. Exiting 0
// then (Node's default) would read as VALID in CI; it is a bug of ours, said so, with 255.
// The first time, other listeners get their turn (a plugin load refuses itself with 254: workloads/load-strategy.ts).
let settled = false;
let drained = 0;
process.on('beforeExit', () => {
  if (settled || ++drained < 2) return;
  console.error(
    'fencepost: the harness crashed (this is a bug of ours): the command was left waiting for something that can never happen; exiting 255',
  );
  process.exit(EXIT.crashed);
});

main(process.argv.slice(2)).then(
  (code) => ((settled = true), process.exit(code)),
  (err) => ((settled = true), process.exit(report(err))),
);
