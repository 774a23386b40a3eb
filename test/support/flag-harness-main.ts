import path from 'node:path';
import { CommandLog } from '../../target/command-log.ts';
import { ExecAdapter } from '../../target/exec-adapter.ts';
import { InjectionGuard } from '../../target/injection-guard.ts';
import type { ExecAdapterSpec } from '../../target/target-spec.ts';
import { FlagNode } from './flag-target.ts';

/**
 * The harness side of a run against a flag target (flag-target.ts), in a process of its own for a test to kill -9:
 * starts the run's injection guard, pauses r0 through the exec adapter `argv[3]` (JSON), says `paused` on stdout,
 * then holds the pause until it is killed. Its command log is `<dir>/commands.jsonl`, its guard `<dir>/guard`.
 */
async function main(dir: string, spec: ExecAdapterSpec): Promise<void> {
  const commandLog = path.join(dir, 'commands.jsonl');
  const log = new CommandLog(commandLog);
  const guard = InjectionGuard.start(path.join(dir, 'guard'), {
    adapters: { [spec.name]: spec },
    commandLog,
    runId: 'flag-run',
  });
  const node = new FlagNode(dir, {
    adapters: { pause: new ExecAdapter(spec, log) },
    guard,
    boundMs: { pause: 60_000, kill: 60_000 },
  });
  await node.pause().catch((err: Error) => console.log(`pause failed: ${err.message}`));
  console.log('paused');
  // Held until killed: an empty event loop would end the process, which is the one thing the test does itself.
  setInterval(() => {}, 60_000);
}

void main(process.argv[2], JSON.parse(process.argv[3]) as ExecAdapterSpec);
