import { HarnessError } from './common/errors.ts';
import { EXIT } from './common/exit-codes.ts';
import { helpText, parseCommandLine, type CommandLine } from './harness/options.ts';
import { Shutdown } from './common/shutdown.ts';

/** Subcommands are loaded on demand so `--help` and argument errors answer at once. */
async function dispatch(config: Readonly<CommandLine>, shutdown: Shutdown): Promise<number> {
  const runsServers =
    config.command === 'run' ||
    config.command === 'doctor' ||
    config.command === 'lock-check' ||
    (config.command === 'nightly' && config.rest[0] !== 'merge' && config.emit === null);
  if (runsServers && config.backend === 'docker') {
    // Before any run folder exists: no engine is a usage error (254) with the commands to start one.
    const { connectDockerEngine } = await import('./cluster/docker/engine.ts');
    await connectDockerEngine();
  }
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
    case 'serve': {
      const { serveCommand } = await import('./harness/serve-command.ts');
      return serveCommand(config, shutdown);
    }
    case 'nightly': {
      const { nightlyCommand } = await import('./matrix/nightly.ts');
      return nightlyCommand(config, shutdown);
    }
    case 'target': {
      const { targetCommand } = await import('./harness/target-check-command.ts');
      return targetCommand(config.rest);
    }
    case 'run': {
      if (config.dryRun) {
        const { dryRunCommand } = await import('./harness/target-dry-run.ts');
        return dryRunCommand(config);
      }
      if (config.lock === 'all') {
        const { runMatrix } = await import('./matrix/matrix.ts');
        return runMatrix(config, shutdown);
      }
      const { runTest } = await import('./harness/run.ts');
      return (await runTest(config, shutdown)).exitCode;
    }
  }
}

async function main(argv: string[]): Promise<number> {
  let config: Readonly<CommandLine>;
  try {
    config = parseCommandLine(argv);
  } catch (err) {
    return report(err);
  }
  if (config.help) {
    console.log(helpText());
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => process.exit(report(err)),
);
