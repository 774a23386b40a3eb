import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flagTarget, FlagNode, type FlagTarget } from '../test/support/flag-target.ts';
import { CommandLog } from './command-log.ts';
import { ExecAdapter } from './exec-adapter.ts';
import { InjectionGuard } from './injection-guard.ts';

const targets: FlagTarget[] = [];
const guards: InjectionGuard[] = [];
afterEach(async () => {
  for (const g of guards.splice(0)) await g.stop();
  for (const t of targets.splice(0)) t.remove();
});

/** r0 of a flag target, paused through an adapter whose resume exits `resumeExit`, with the run's guard. */
function pausedNode(resumeExit: number) {
  const target = flagTarget();
  targets.push(target);
  const spec = target.adapter({ pause: [0, 0, 0], resumeExit, timeoutMs: 5000 });
  const guard = InjectionGuard.start(path.join(target.dir, 'guard'), {
    adapters: { flag: spec },
    commandLog: path.join(target.dir, 'commands.jsonl'),
    runId: 'r',
  });
  guards.push(guard);
  const log = new CommandLog(path.join(target.dir, 'commands.jsonl'));
  const node = new FlagNode(target.dir, {
    adapters: { pause: new ExecAdapter(spec, log) },
    guard,
    boundMs: { pause: 60_000, kill: 60_000 },
  });
  const armed = () => fs.readdirSync(guard.dir).filter((f) => /^\d+-\d+\.json$/.test(f));
  return { target, node, armed };
}

describe('a heal that fails (audit R3)', () => {
  it('leaves the node paused, its injection armed for the guard and cleanup, and says how to heal it', async () => {
    const { target, node, armed } = pausedNode(1);
    await node.pause();
    expect(target.state()).toBe('stopped');
    await expect(node.resume()).rejects.toThrow(/resume\.sh r0 1 exited 1/);
    // Before: the id was disarmed before the adapter's call, `paused` cleared by nobody, and nothing said it.
    expect(node.paused).toBe(true);
    expect(armed()).toHaveLength(1);
    expect(node.leftFaulted()).toEqual([
      {
        server: 'r0',
        action: 'pause',
        heal: `${target.dir}/resume.sh r0 1`,
        error: `${target.dir}/resume.sh r0 1 exited 1`,
      },
    ]);
  });

  it('a later heal that works clears it', async () => {
    const { node, armed } = pausedNode(0);
    await node.pause();
    await node.resume();
    expect(node.paused).toBe(false);
    expect(node.leftFaulted()).toEqual([]);
    expect(armed()).toEqual([]);
  });
});
