import { execa } from 'execa';
import { shellLine, type PlannedCommand } from './adapter.ts';
import type { CommandLog } from './command-log.ts';
import type { HealthProbe } from './target-spec.ts';
import { targetProgram } from './target-program.ts';

/** How the health probe reads in `--dry-run` and the command log: a command of this machine, not of an adapter. */
export const HEALTH_ADAPTER = 'health probe';

/** The probe's argv, its program resolved against the target file's folder when it names a path (as an exec adapter's). */
function argv(h: HealthProbe): string[] {
  const [program, ...args] = h.command;
  return [targetProgram(h.cwd, program), ...args];
}

/** The probe as `--dry-run` prints it and the command log records each execution of it (audit R16). */
export function healthPlan(h: HealthProbe): PlannedCommand {
  return { adapter: HEALTH_ADAPTER, action: 'health', node: 'this machine', command: shellLine(argv(h)) };
}

/** One execution of the probe, logged: whether it passed, and how it ended in words (`exit 1`, `not found`). */
export async function probeHealth(h: HealthProbe, log: CommandLog): Promise<{ ok: boolean; said: string }> {
  const [file, ...args] = argv(h);
  return log
    .run(healthPlan(h), async () => {
      const r = await execa(file, args, { cwd: h.cwd, reject: false, timeout: h.intervalMs, stdin: 'ignore' });
      if (r.exitCode !== 0) throw new Error(ended(r));
      return r;
    })
    .then(
      () => ({ ok: true, said: 'exit 0' }),
      (err: Error) => ({ ok: false, said: err.message }),
    );
}

function ended(r: { exitCode?: number; signal?: string; timedOut?: boolean; code?: string }): string {
  if (r.code === 'ENOENT') return 'not found';
  if (r.timedOut) return 'no answer within its interval';
  return r.exitCode !== undefined ? `exit ${r.exitCode}` : `killed by ${r.signal ?? 'a signal'}`;
}
