import fs from 'node:fs';
import path from 'node:path';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import { createAdapter } from './adapters.ts';
import type { CommandLog } from './command-log.ts';
import type { ArmedInjection, GuardConfig } from './injection-guard.ts';
import { stopOrphanedCommand } from './orphaned-command.ts';

/** How many failed heals the guard tries before it leaves an injection to `cleanup`, and how far apart. */
export const GUARD_TRIES = 5;
export const GUARD_RETRY_MS = 2000;

/** What is left of one armed injection after a look at it: still armed, healed, or given up by the guard. */
export type ArmedOutcome = 'armed' | 'healed' | 'given-up' | 'gone';

export interface HealArmedContext {
  /** Whether the harness of the run still runs: while it does, only an injection past its bound is healed here. */
  readonly alive: boolean;
  readonly config: GuardConfig;
  readonly log: CommandLog;
  readonly say: (line: string) => void;
  /** Who heals: the guard retries a failed heal and gives up after GUARD_TRIES; `cleanup` tries each one once. */
  readonly by?: 'guard' | 'cleanup';
}

/**
 * Heals the armed injection in `dir/name` when it is due, through the adapter the run's guard.json names. The file is
 * renamed first (`.guard`, `.cleanup`), so the harness and the guard never both heal it; a heal that fails puts it
 * back, armed. One whose command was still running when the harness died is healed at once and once more after the
 * command's bound: an orphaned `sig.sh STOP` that had not acted yet would otherwise stop the server after the heal.
 */
export async function healArmed(dir: string, name: string, ctx: HealArmedContext): Promise<ArmedOutcome> {
  const by = ctx.by ?? 'guard';
  const file = path.join(dir, name);
  let armed: ArmedInjection;
  try {
    armed = JSON.parse(fs.readFileSync(file, 'utf8')) as ArmedInjection;
  } catch {
    return 'gone'; // claimed by the harness meanwhile
  }
  if (armed.gaveUp && by === 'guard') return 'given-up';
  const now = Date.now();
  const retryDue = by === 'cleanup' || armed.retryAt === undefined || now >= armed.retryAt;
  if ((ctx.alive && now < armed.expiresAt) || !retryDue) return 'armed';
  const base = path.join(dir, name.replace(/\.(harness|guard|cleanup)$/, ''));
  const claimed = `${base}.${by}`;
  try {
    fs.renameSync(file, claimed);
  } catch {
    return 'gone'; // the harness claimed it first
  }
  const what = `${armed.action} of ${armed.node} (${armed.adapter})`;
  const why = by === 'cleanup' ? 'its run is gone' : ctx.alive ? 'it outlived its bound' : 'the harness is gone';
  // Its command still running now has no timer left to bound it (that was the harness's): stopped before the heal.
  const killed = armed.inFlight ? stopOrphanedCommand(path.resolve(base.replace(/\.json$/, ''))) : [];
  if (killed.length)
    ctx.say(`stopped the ${armed.action} command of ${armed.node}, still running (pids ${killed.join(' ')})`);
  try {
    const spec = ctx.config.adapters[armed.adapter];
    if (!spec) throw new Error(`the run's guard.json names no adapter ${armed.adapter}`);
    await createAdapter(spec, ctx.log, ctx.config.runId).heal(armed.action, armed.node);
  } catch (err) {
    const tries = (armed.tries ?? 0) + 1;
    const gaveUp = by === 'cleanup' || tries >= GUARD_TRIES;
    rearm(base, claimed, { ...armed, tries, retryAt: now + GUARD_RETRY_MS * tries, gaveUp });
    ctx.say(
      `could not heal ${what}: ${(err as Error).message}; ${gaveUp ? 'left armed: `fencepost cleanup` tries it again' : `tries again in ${(GUARD_RETRY_MS * tries) / 1000} s`}`,
    );
    return gaveUp ? 'given-up' : 'armed';
  }
  // Only the guard comes back for a second heal; `cleanup` runs once, long after any command of the run could act.
  if (by === 'guard' && !ctx.alive && armed.inFlight && now < (armed.commandUntil ?? 0)) {
    rearm(base, claimed, { ...armed, inFlight: false, retryAt: armed.commandUntil });
    ctx.say(
      `healed ${what}: ${why}; its command was still running, so it heals again at ${new Date(armed.commandUntil!).toISOString()}`,
    );
    return 'armed';
  }
  fs.rmSync(claimed, { force: true });
  ctx.say(`healed ${what}: ${why}`);
  return 'healed';
}

/** Puts a claimed injection back, armed, with what the heal learnt. */
function rearm(base: string, claimed: string, armed: ArmedInjection): void {
  fs.writeFileSync(`${base}.tmp`, JSON.stringify(armed), { mode: RUN_FILE_MODE });
  fs.renameSync(`${base}.tmp`, base);
  fs.rmSync(claimed, { force: true });
}
