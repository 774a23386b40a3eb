import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../common/pid-registry.ts';
import { eventually } from '../../test/support/eventually.ts';
import { LockProcess, type LockProcessEvents } from './lock-process.ts';
import type { ForeignCommand } from './manifest.ts';

/**
 * Node may report a lock process's `exit` before the last reply it wrote to stdout: both are ready in the same turn
 * of the event loop, in either order. lock-check's "close (B) and exit" step failed now and then on exactly that
 * (the reply to `close` read as lost). Here the order is set by hand: the process is a fake child whose events the
 * test emits (exit first, then the reply); its tree is a real `sleep` in a group of its own, so the kill that
 * follows an exit reaches a real process and nothing else.
 */
const trees: number[] = [];
afterAll(() => {
  for (const pid of trees) if (isAlive(pid)) process.kill(-pid, 'SIGKILL');
});

interface FakeChild extends EventEmitter {
  pid: number;
  stdin: PassThrough;
  stdout: PassThrough;
  stderr: PassThrough;
}

const cmd: ForeignCommand = { command: ['fake'], cwd: '/', expectToken: false, renews: false };

/** A LockProcess over a fake child whose tree is a real sleeping process; the requests it writes, read back. */
function fakeLockProcess(events: LockProcessEvents = {}): { p: LockProcess; child: FakeChild; sent: string[] } {
  const tree = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  tree.unref();
  trees.push(tree.pid!);
  const child = Object.assign(new EventEmitter(), {
    pid: tree.pid!,
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
  });
  const sent: string[] = [];
  child.stdin.on('data', (d: Buffer) => sent.push(...d.toString().trim().split('\n')));
  // The constructor is private: LockProcess.start spawns. The test takes the same two steps start does after spawning.
  const Ctor = LockProcess as unknown as new (
    c: FakeChild,
    cmd: ForeignCommand,
    e: LockProcessEvents,
    g: null,
  ) => {
    listen(): void;
  };
  const p = new Ctor(child, cmd, events, null);
  p.listen();
  return { p: p as unknown as LockProcess, child, sent };
}

describe('a lock process that exits right after its reply', () => {
  it('reads the reply Node reports after the exit, and the request succeeds', async () => {
    const exits: boolean[] = [];
    const { p, child, sent } = fakeLockProcess({ exited: ({ expected }) => exits.push(expected) });
    const reply = p.request({ op: 'close' }, 5000);
    await eventually('the close request written', () => sent.length === 1, 2000);
    const id = (JSON.parse(sent[0]) as { id: number }).id;
    child.emit('exit', 0, null);
    child.stdout.end(`${JSON.stringify({ id, result: 'closed' })}\n`);
    await expect(reply).resolves.toEqual({ kind: 'closed' });
    await eventually('the exit reported', () => exits.length === 1, 2000);
    // No request goes to a process that has exited.
    await expect(p.request({ op: 'close' }, 5000)).rejects.toThrow(/exited with code 0/);
    expect(p.usable).toBe(false);
    await eventually('its tree killed', () => !isAlive(child.pid), 5000);
  });

  it('fails the open request, naming the exit, when stdout ends without its reply', async () => {
    const { p, child, sent } = fakeLockProcess();
    const reply = p.request({ op: 'close' }, 5000);
    await eventually('the close request written', () => sent.length === 1, 2000);
    child.emit('exit', 1, null);
    child.stdout.end();
    await expect(reply).rejects.toThrow(/^the lock process \(pid \d+\) exited with code 1$/);
  });

  it('fails it within the pipe-drain bound when a leftover keeps stdout open', async () => {
    const { p, child, sent } = fakeLockProcess();
    const reply = p.request({ op: 'close' }, 30_000);
    await eventually('the close request written', () => sent.length === 1, 2000);
    child.emit('exit', null, 'SIGKILL');
    await expect(reply).rejects.toThrow(/exited with signal SIGKILL/);
  });
});
