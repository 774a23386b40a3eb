import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test/support/eventually.ts';
import { flagTarget, type FlagTarget } from '../test/support/flag-target.ts';
import { CommandLog } from './command-log.ts';
import { GUARD_POLL_MS } from './injection-guard.ts';

const HARNESS = fileURLToPath(new URL('../test/support/flag-harness-main.ts', import.meta.url));
/** The pause command's timeout: its bound, after which an orphaned command can act no more. */
const TIMEOUT_MS = 2000;
/** What the guard may take beyond that bound: its start-up (Node and tsx on a busy 2-core machine) and its polls. */
const GUARD_SLACK_MS = 15_000 + 5 * GUARD_POLL_MS;

const targets: FlagTarget[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const t of targets.splice(0)) t.remove();
});

/** The harness side in its own process, pausing r0 with `pause` = [s before acting, s after, exit code]. */
function startHarness(pause: [number, number, number], pauseFromChild = false) {
  const target = flagTarget();
  targets.push(target);
  const spec = target.adapter({ pause, timeoutMs: TIMEOUT_MS, pauseFromChild });
  const child = spawn(process.execPath, ['--import', 'tsx', HARNESS, target.dir, JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += String(d)));
  return { target, child, stdout: () => stdout };
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** Pids of the processes still running a pause script of the target (the shell, and a subshell it forked). */
function commandsRunning(target: FlagTarget): number[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(`${target.dir}/pause`);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/**
 * The guard healed r0 for good: running, its last mark a heal (after the pause acted, unless `mayNotAct`), and the
 * guard gone.
 */
async function healedForGood(target: FlagTarget, guardDir: string, { mayNotAct = false } = {}): Promise<void> {
  await eventually(
    'the guard healed r0 after its pause, and exited',
    () => {
      const marks = target.marks();
      const guardGone = !fs.readdirSync(guardDir).some((f) => /^\d+-\d+\.json/.test(f));
      return (
        target.state() === 'running' && marks.at(-1) === 'healed' && (mayNotAct || marks.includes('acted')) && guardGone
      );
    },
    TIMEOUT_MS + GUARD_SLACK_MS,
  );
}

describe('kill -9 of the harness at each moment of an exec injection (audit R4)', () => {
  it('before the command acts: the guard stops the orphaned command and heals, for good', async () => {
    const { target, child } = startHarness([1, 0, 0]);
    await eventually('the pause command started', () => target.marks().includes('started'), 30_000);
    await kill9(child);
    // The command is in the log from before it ran, with no outcome: what was running when the harness died.
    const log = path.join(target.dir, 'commands.jsonl');
    expect(CommandLog.unfinished(log).map((c) => c.command)).toEqual([`${target.dir}/pause.sh r0 1 0 0`]);
    // Whether the command acted first depends on how soon the guard looks (its start-up on a busy machine); either
    // way nothing of it is left to act after the last heal.
    await healedForGood(target, path.join(target.dir, 'guard'), { mayNotAct: true });
    expect(commandsRunning(target)).toEqual([]);
  });

  it('during the command, after it acted: the guard resumes the server', async () => {
    const { target, child } = startHarness([0, 3, 0]);
    await eventually('the pause command stopped r0', () => target.state() === 'stopped', 30_000);
    await kill9(child);
    expect(CommandLog.unfinished(path.join(target.dir, 'commands.jsonl')).map((c) => c.action)).toEqual(['pause']);
    await healedForGood(target, path.join(target.dir, 'guard'));
  });

  it('after the command returned: the guard resumes the server, and the log has the pause with its outcome', async () => {
    const { target, child, stdout } = startHarness([0, 0, 0]);
    await eventually('the harness paused r0', () => stdout().includes('paused'), 30_000);
    expect(target.state()).toBe('stopped');
    await kill9(child);
    await healedForGood(target, path.join(target.dir, 'guard'));
    const log = CommandLog.read(path.join(target.dir, 'commands.jsonl'));
    expect(log.map((c) => [c.action, c.ok, c.by])).toEqual([
      ['pause', true, 'harness'],
      ['resume', true, 'guard'],
    ]);
  });
});

describe('kill -9 of the harness while its command outlives its bound (issue 49, rerun on a real Redis)', () => {
  it('the orphaned command is stopped, so it cannot stop the server after the guard has healed it and gone', async () => {
    // Acts 4 s after it starts, past its 2 s timeout: the harness would have killed it then, but the harness is dead.
    const { target, child } = startHarness([4, 0, 0]);
    await eventually('the pause command started', () => target.marks().includes('started'), 30_000);
    await kill9(child);
    const guardDir = path.join(target.dir, 'guard');
    await eventually(
      'the guard healed r0, exited, and no command of the run is left running',
      () => {
        const armed = fs.readdirSync(guardDir).some((f) => /^\d+-\d+\.json/.test(f));
        return !armed && commandsRunning(target).length === 0;
      },
      TIMEOUT_MS + 4000 + GUARD_SLACK_MS,
    );
    expect(target.state()).toBe('running');
    expect(target.marks().at(-1)).toBe('healed');
  });
});

describe('a pause command that acted and then failed (audit R2)', () => {
  it('is healed at once, and the shot fails saying so', async () => {
    const { target, stdout } = startHarness([0, 0, 1]);
    await eventually('the harness tried to pause r0', () => stdout().includes('paused'), 30_000);
    expect(stdout()).toMatch(/pause failed: .*pause\.sh r0 0 0 1 exited 1; healed at once, as it may have acted/);
    expect(target.state()).toBe('running');
    expect(target.marks()).toEqual(['started', 'acted', 'healed']);
  });

  it('past its timeout, acting from a child of its shell: the child is killed with it, so the heal holds', async () => {
    // The timeout kills the shell; its child, still sleeping, would stop r0 1 s after the heal.
    const { target, stdout } = startHarness([3, 0, 0], true);
    await eventually('the harness tried to pause r0', () => stdout().includes('paused'), 30_000);
    expect(stdout()).toMatch(/did not finish within 2000 ms; healed at once, as it may have acted/);
    await eventually('no process of the command is left', () => commandsRunning(target).length === 0, 10_000);
    expect(target.state()).toBe('running');
    expect(target.marks()).toEqual(['started', 'healed']);
  });

  it('past its timeout: healed at once too', async () => {
    const { target, stdout } = startHarness([0, 4, 0]);
    await eventually('the harness tried to pause r0', () => stdout().includes('paused'), 30_000);
    expect(stdout()).toMatch(/did not finish within 2000 ms; healed at once, as it may have acted/);
    expect(target.state()).toBe('running');
  });
});
