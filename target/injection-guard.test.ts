import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../common/pid-registry.ts';
import { TargetAbort } from '../harness/target-abort.ts';
import { eventually } from '../test/support/eventually.ts';
import { flagTarget, FlagNode, type FlagTarget } from '../test/support/flag-target.ts';
import { CommandLog } from './command-log.ts';
import { ExecAdapter } from './exec-adapter.ts';
import { InjectionGuard } from './injection-guard.ts';

const dirs: string[] = [];
const targets: FlagTarget[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  for (const t of targets.splice(0)) t.remove();
});

function guardDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-guard-test-'));
  dirs.push(d);
  return path.join(d, 'guard');
}

describe('the injection guard process', () => {
  it('is gone when stop() returns: a run that ended leaves no guard behind (CI saw one alive after the run)', async () => {
    const dir = guardDir();
    const guard = InjectionGuard.start(dir, { adapters: {}, commandLog: path.join(dir, 'commands.log'), runId: 'r1' });
    expect(isAlive(guard.pid)).toBe(true);
    expect(guard.alive()).toBe(true);
    expect(await guard.stop()).toBe(true);
    expect(isAlive(guard.pid)).toBe(false);
    expect(guard.alive()).toBe(false);
  });
});

describe('the death of the guard is noticed (audit R7)', () => {
  it('a node refuses to inject once its guard is gone: nothing would heal the server if fencepost died', async () => {
    const target = flagTarget();
    targets.push(target);
    const spec = target.adapter({ pause: [0, 0, 0], timeoutMs: 5000 });
    const guard = InjectionGuard.start(path.join(target.dir, 'guard'), {
      adapters: { flag: spec },
      commandLog: path.join(target.dir, 'commands.jsonl'),
      runId: 'r',
    });
    const node = new FlagNode(target.dir, {
      adapters: { pause: new ExecAdapter(spec, new CommandLog(null)) },
      guard,
      boundMs: { pause: 60_000, kill: 60_000 },
    });
    process.kill(guard.pid, 'SIGKILL');
    await eventually('the guard is gone', () => !guard.alive(), 10_000);
    await expect(node.pause()).rejects.toThrow(
      `the injection guard (pid ${guard.pid}) is gone: nothing would heal r0 if fencepost died, so nothing is injected`,
    );
    expect(node.paused).toBe(false);
    expect(target.marks()).toEqual([]);
  });

  it("the run's abort watch ends the run with the reason its check gives", async () => {
    const lines: string[] = [];
    const abort = new TargetAbort(
      { maxErrorRate: null, maxMinutes: 10 },
      null,
      (l) => lines.push(l),
      new CommandLog(null),
    );
    let guardAlive = true;
    abort.watch(() => (guardAlive ? null : 'the injection guard (pid 7) is gone'), 10);
    guardAlive = false;
    expect(await abort.aborted).toBe('the injection guard (pid 7) is gone');
    expect(lines).toEqual([
      'fencepost: ABORT: the injection guard (pid 7) is gone; healing every fault and stopping the clients',
    ]);
    abort.stop();
  });
});
