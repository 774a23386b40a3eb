import { describe, expect, it, vi } from 'vitest';
import { EXIT } from './exit-codes.ts';
import { Shutdown } from './shutdown.ts';
import { checkedMessage } from '../workloads/client-protocol.ts';

/** How long a teardown step takes: the steps are slow on purpose, so the crash path meets one still running. */
const STEP_MS = 50;

describe('Shutdown.crash (an error nothing caught)', () => {
  it('runs every step, waits for one the normal path is running, and resolves 255 — never 1', async () => {
    const shutdown = new Shutdown();
    const done: string[] = [];
    shutdown.add('stop cluster', async () => {
      await new Promise((r) => setTimeout(r, STEP_MS));
      done.push('stop cluster');
    });
    const heal = shutdown.add('heal', () => void done.push('heal'));
    const stopClients = shutdown.add('stop clients', async () => {
      await new Promise((r) => setTimeout(r, 2 * STEP_MS));
      done.push('stop clients');
    });
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const inFlight = stopClients.run(); // the normal path is tearing down when the stray error comes
    const code = await shutdown.crash(new Error('ENOSPC: no space left on device, write'));
    expect(code).toBe(EXIT.crashed);
    expect(done.sort()).toEqual(['heal', 'stop clients', 'stop cluster']);
    expect(shutdown.stray?.error).toBeInstanceOf(Error);
    expect(err.mock.calls.flat().join('\n')).toMatch(/crashed.*ENOSPC/);
    // A second stray (or the command's own failure after it) waits for the same teardown and the same code.
    expect(await shutdown.crash(new Error('later'))).toBe(EXIT.crashed);
    await inFlight;
    heal.cancel();
    err.mockRestore();
  });
});

describe('checkedMessage (what a client may send over IPC)', () => {
  it('passes the protocol, and names what is wrong with anything else instead of throwing', () => {
    const op = { process: 0, type: 'invoke', f: 'acquire', value: { account: 0 } };
    const ops = (entry: Record<string, unknown>) => ({ type: 'ops', ops: [{ seq: 1, op, at: '1', ...entry }] });
    const invokeThenOk = [
      { seq: 1, op, at: '123456789' },
      { seq: 2, op: { ...op, type: 'ok' }, at: '123456999' },
    ];
    expect(checkedMessage({ type: 'ops', ops: invokeThenOk })).toEqual({ type: 'ops', ops: invokeThenOk });
    expect(checkedMessage({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(checkedMessage(ops({ at: 'x' }))).toBe('op time "x" is not decimal nanoseconds');
    expect(checkedMessage(ops({ at: 12 }))).toBe('op time 12 is not decimal nanoseconds');
    expect(checkedMessage(ops({ op: null }))).toBe('an op entry without an op');
    expect(checkedMessage(ops({ op: { ...op, type: 'maybe' } }))).toBe('op type "maybe"');
    expect(checkedMessage(ops({ seq: 0 }))).toBe('op seq 0');
    expect(checkedMessage({ type: 'ops', ops: [] })).toBe('an ops message without ops');
    expect(checkedMessage({ type: 'ops', ops: [invokeThenOk[0], 'x'] })).toBe('an op entry that is not an object');
    // The message of the protocol before ops were batched is not part of it any more.
    expect(checkedMessage({ type: 'op', op, at: '1' })).toBe('unknown type "op"');
    expect(checkedMessage({ type: 'log' })).toBe('a log message without a line');
    expect(checkedMessage('hello')).toBe('not an object: string');
    expect(checkedMessage({ type: 'rm -rf' })).toBe('unknown type "rm -rf"');
  });
});
