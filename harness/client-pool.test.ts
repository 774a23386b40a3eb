import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkedMessage } from '../workloads/client-protocol.ts';
import { clientEnvironment } from './client-environment.ts';
import { ClientOps, exitIsDeath } from './client-deaths.ts';
import { lastLines } from './client-log-tail.ts';

describe('clientEnvironment', () => {
  it('drops every variable that turns on a library debug log, keeps the rest, adds the client its own', () => {
    const harness = {
      PATH: '/usr/bin',
      DEBUG: '*',
      NODE_DEBUG: 'net',
      GRPC_TRACE: 'all',
      GRPC_VERBOSITY: 'DEBUG',
      TZ: 'UTC',
    };
    expect(clientEnvironment(harness, { LD_PRELOAD: '/run/clock.so' })).toEqual({
      PATH: '/usr/bin',
      TZ: 'UTC',
      LD_PRELOAD: '/run/clock.so',
    });
    // The harness's own environment is left as it was.
    expect(harness.DEBUG).toBe('*');
  });
});

describe('checkedMessage: a client reporting its lock process', () => {
  it('takes a pid with the command, or null when the process ended', () => {
    expect(checkedMessage({ type: 'lock-process', pid: 4242, command: '/usr/bin/python3 lock.py' })).toEqual({
      type: 'lock-process',
      pid: 4242,
      command: '/usr/bin/python3 lock.py',
    });
    expect(checkedMessage({ type: 'lock-process', pid: null, ended: 4242 })).toEqual({
      type: 'lock-process',
      pid: null,
      ended: 4242,
    });
  });

  it.each([0, -1, 1.5, '12', undefined, null])('refuses pid %j (without ended): the pool would signal it', (pid) => {
    expect(checkedMessage({ type: 'lock-process', pid })).toBe(
      `a lock-process message with pid ${JSON.stringify(pid)}`,
    );
  });
});

describe("checkedMessage: a client's answer to a clock request (clock-rate-client's proof)", () => {
  it('takes its seq, its wall clock in ms and its monotonic clock in decimal ns', () => {
    const m = { type: 'clock', seq: 3, wallMs: 1_765_000_000_000, monoNs: '81234567890123' };
    expect(checkedMessage(m)).toEqual(m);
  });

  it.each([
    { type: 'clock', seq: 3, wallMs: 1, monoNs: 81 },
    { type: 'clock', seq: 3, wallMs: 'now', monoNs: '81' },
    { type: 'clock', wallMs: 1, monoNs: '81' },
    { type: 'clock', seq: 3, wallMs: 1, monoNs: '-81' },
  ])('refuses %j', (m) => {
    expect(checkedMessage(m)).toBe('a clock message without its seq, wallMs and monoNs');
  });
});

describe("ClientOps: a client's op reaches the journal with the slot whose clock stamped it", () => {
  it('passes the stamp and the slot, so a rated clock can be mapped back to real time', () => {
    const got: [unknown, bigint | undefined, number | undefined][] = [];
    const handle = { slot: 2, pid: 1, process: 2, paused: false, exited: false };
    const ops = new ClientOps(handle, '/nonexistent/in-flight', 2, (op, at, slot) => got.push([op, at, slot]));
    ops.received({ seq: 1, at: '5000', op: { process: 2, type: 'invoke', f: 'acquire', value: { account: 0 } } });
    expect(got).toEqual([[{ process: 2, type: 'invoke', f: 'acquire', value: { account: 0 } }, 5000n, 2]]);
  });
});

describe('exitIsDeath: which client exits the history records as client-exited', () => {
  const mid = { started: true, current: true, stopping: false, killedOnPurpose: false, libraryCrash: false };
  it('a death mid-run, killed by the nemesis or not', () => {
    expect(exitIsDeath(mid)).toBe(true);
    expect(exitIsDeath({ ...mid, killedOnPurpose: true })).toBe(true);
  });

  it("a nemesis kill whose exit is handled after the run's stop began (kill-holder's last shot)", () => {
    expect(exitIsDeath({ ...mid, stopping: true, killedOnPurpose: true })).toBe(true);
  });

  it('a lock library ending its process during the stop (its write already recorded a fail, lock-lost)', () => {
    // CI saw it: the crash came in the stop's grace, the history held 17 lock-lost writes and 16 library crashes.
    expect(exitIsDeath({ ...mid, stopping: true, libraryCrash: true })).toBe(true);
    expect(exitIsDeath({ ...mid, libraryCrash: true })).toBe(true);
  });

  it('not an exit the stop itself asked for, nor one before the start or of a process the slot replaced', () => {
    expect(exitIsDeath({ ...mid, stopping: true })).toBe(false);
    expect(exitIsDeath({ ...mid, started: false })).toBe(false);
    expect(exitIsDeath({ ...mid, current: false, killedOnPurpose: true })).toBe(false);
  });
});

describe("lastLines: a dead client's last log lines", () => {
  it('reads only the tail of a log a lock process flooded (the whole file went into one string)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-lastlines-'));
    try {
      const log = path.join(dir, 'client-0.log');
      const fd = fs.openSync(log, 'w');
      // 200 MiB of one line with no newline, then the lines that matter.
      const mib = Buffer.alloc(1 << 20, 'x');
      for (let i = 0; i < 200; i++) fs.writeSync(fd, mib);
      fs.writeSync(fd, '\nTraceback (most recent call last):\nValueError: bad\n');
      fs.closeSync(fd);
      const before = process.memoryUsage().rss;
      expect(lastLines(log, 2)).toEqual(['Traceback (most recent call last):', 'ValueError: bad']);
      expect(process.memoryUsage().rss - before).toBeLessThan(64 << 20);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
