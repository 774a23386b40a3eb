import fs from 'node:fs';
import path from 'node:path';
import { notOurs } from '../common/ownership.ts';
import { CommandLog } from './command-log.ts';
import { healArmed } from './heal-armed.ts';
import type { ArmedInjection, GuardConfig } from './injection-guard.ts';
import { createAdapter } from './adapters.ts';
import { HEAL_OF } from './adapter.ts';

/** An armed injection's file in any state: armed, or claimed by whoever was healing it when it died. */
const LEFT_ARMED = /^\d+-\d+\.json(\.harness|\.guard|\.cleanup)?$/;

/**
 * `cleanup` for a run whose harness is gone: heals every injection its guard folder still holds armed (audit R7: a
 * run whose guard had died left a server stopped, and `cleanup` said "nothing left over"), through the adapter its
 * guard.json names, logging each command to the run's command log as `cleanup`. The folder and guard.json must be
 * ours and written by nobody else: they name the commands cleanup executes. Returns how many it healed, and one line
 * for each it could not heal (what, where, and the command that heals it), left armed for the next `cleanup`.
 */
export async function healLeftoverInjections(
  runDir: string,
  log: (line: string) => void,
): Promise<{ healed: number; unhealed: string[] }> {
  const none = { healed: 0, unhealed: [] };
  const dir = path.join(runDir, 'guard');
  if (!fs.existsSync(dir)) return none;
  const names = fs.readdirSync(dir).filter((f) => LEFT_ARMED.test(f));
  if (!names.length) return none;
  const config = path.join(dir, 'guard.json');
  const foreign = notOurs(dir, 'dir', { private: true }) ?? notOurs(config, 'file', { private: true });
  if (foreign) {
    log(`left alone: the armed injections of ${runDir} (its guard folder ${foreign}) — not a run of ours`);
    return none;
  }
  const guard = JSON.parse(fs.readFileSync(config, 'utf8')) as GuardConfig;
  const commands = new CommandLog(guard.commandLog, 'cleanup');
  let healed = 0;
  const unhealed: string[] = [];
  for (const name of names) {
    const armed = readArmed(path.join(dir, name));
    const outcome = await healArmed(dir, name, {
      alive: false,
      config: guard,
      log: commands,
      say: (line) => log(`${line} (left armed by ${runDir})`),
      by: 'cleanup',
    });
    if (outcome === 'healed') healed++;
    else if (outcome === 'given-up' && armed) {
      const spec = guard.adapters[armed.adapter];
      const heal = spec
        ? createAdapter(spec, commands, guard.runId).plan(HEAL_OF[armed.action], armed.node).command
        : '?';
      unhealed.push(
        `${armed.node} (${armed.action} by ${runDir}) may still be ${armed.action === 'pause' ? 'stopped' : 'down'}: ${heal}`,
      );
    }
  }
  return { healed, unhealed };
}

function readArmed(file: string): ArmedInjection | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ArmedInjection;
  } catch {
    return null;
  }
}
