import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, startTime } from '../common/pid-registry.ts';
import { CommandLog } from './command-log.ts';
import { healArmed } from './heal-armed.ts';
import { ARMED_FILE, GUARD_POLL_MS, type GuardConfig } from './injection-guard.ts';

/**
 * The injection guard's process (injection-guard.ts says why it exists): every GUARD_POLL_MS, heal each armed
 * injection whose bound passed, and every one at once when the harness is gone — also one the harness was healing
 * when it died (`.harness`); exit when the harness says the run is over, or when the harness is gone and nothing
 * armed is left that the guard still tries.
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
    const armed = fs.readdirSync(dir).filter((f) => ARMED_FILE.test(f) || (!alive && /\.json\.harness$/.test(f)));
    let open = 0;
    for (const name of armed) {
      const left = await healArmed(dir, name, {
        alive,
        config,
        log,
        say: (l) => console.log(`${new Date().toISOString()} ${l}`),
      });
      if (left === 'armed') open++;
    }
    if (!alive && open === 0) return;
    await sleep(GUARD_POLL_MS);
  }
}

main(process.argv[2]).then(
  () => process.exit(0),
  (err) => {
    console.log(`injection guard failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
