import { HarnessError } from './common/errors.ts';
import { EXIT } from './common/exit-codes.ts';
import { OPTIONS, parseCommandLine, type CommandLine } from './cli/command-line.ts';
import { commandModule } from './cli/command-table.ts';
import { npmCommandLine, swallowedByNpm } from './harness/npm-swallowed.ts';
import { CLI } from './common/cli-name.ts';
import { Shutdown } from './common/shutdown.ts';
import { dropOutputWhenReaderCloses } from './common/closed-output.ts';

const OPTION_NAMES = OPTIONS.map((o) => o.name);

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
    const { helpFor } = await import('./cli/command-help.ts');
    console.log(helpFor(config.command, 'rest' in config ? config.rest : []));
    return EXIT.valid;
  }
  const shutdown = new Shutdown().install().catchStrays();
  let code: number;
  try {
    // One lookup: the command's module (cli/commands/) loads its body only now, so `--help` answered at once.
    code = await commandModule(config.command).run(config, shutdown);
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

dropOutputWhenReaderCloses();
main(process.argv.slice(2)).then(
  (code) => ((settled = true), process.exit(code)),
  (err) => ((settled = true), process.exit(report(err))),
);
