import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, startTime } from '../common/pid-registry.ts';
import { createAdapter } from './adapters.ts';
import { CommandLog } from './command-log.ts';
import { GUARD_POLL_MS, type ArmedInjection, type GuardConfig } from './injection-guard.ts';

/**
 * The injection guard's process (injection-guard.ts says why it exists): every GUARD_POLL_MS, heal each armed
 * injection whose bound passed, and every one at once when the harness is gone; exit when the harness says the run is
 * over, or when the harness is gone and nothing armed is left.
 */
async function main(dir: string): Promise<void> {
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'guard.json'), 'utf8')) as GuardConfig;
  const log = new CommandLog(config.commandLog, 'guard');
  const harnessAlive = () =>
    isAlive(config.harnessPid) &&
    (config.harnessStartTime === null || startTime(config.harnessPid) === config.harnessStartTime);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'done'))) return;
    const alive = harnessAlive();
    const armed = fs.readdirSync(dir).filter((f) => /^\d+-\d+\.json$/.test(f));
    for (const name of armed) await healIfDue(dir, name, alive, config, log);
    if (!alive && !fs.readdirSync(dir).some((f) => /^\d+-\d+\.json$/.test(f))) return;
    await sleep(GUARD_POLL_MS);
  }
}

async function healIfDue(dir: string, name: string, alive: boolean, config: GuardConfig, log: CommandLog) {
  const file = path.join(dir, name);
  let armed: ArmedInjection;
  try {
    armed = JSON.parse(fs.readFileSync(file, 'utf8')) as ArmedInjection;
  } catch {
    return; // claimed by the harness meanwhile
  }
  if (alive && Date.now() < armed.expiresAt) return;
  try {
    fs.renameSync(file, `${file}.guard`);
  } catch {
    return; // the harness claimed it first
  }
  const spec = config.adapters[armed.adapter];
  const why = alive ? 'it outlived its bound' : 'the harness is gone';
  try {
    await createAdapter(spec, log, config.runId).heal(armed.action, armed.node);
    console.log(`${new Date().toISOString()} healed ${armed.action} of ${armed.node} (${armed.adapter}): ${why}`);
  } catch (err) {
    console.log(
      `${new Date().toISOString()} could not heal ${armed.action} of ${armed.node}: ${(err as Error).message}`,
    );
  }
  fs.rmSync(`${file}.guard`, { force: true });
}

main(process.argv[2]).then(
  () => process.exit(0),
  (err) => {
    console.log(`injection guard failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
