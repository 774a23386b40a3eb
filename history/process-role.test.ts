import { describe, expect, it } from 'vitest';
import { clientProcessOf, processRole, watchdogProcess } from './process-role.ts';

describe('processRole', () => {
  it('tells a client, its watchdog, the harness and the nemesis apart', () => {
    expect(processRole(3)).toEqual({ kind: 'client', process: 3 });
    expect(processRole(99_999)).toEqual({ kind: 'client', process: 99_999 });
    expect(processRole(100_003)).toEqual({ kind: 'watchdog', of: 3 });
    expect(processRole('harness')).toEqual({ kind: 'harness' });
    expect(processRole('nemesis')).toEqual({ kind: 'nemesis' });
  });

  it('numbers a watchdog 100 000 past its client (the history ids stored runs carry)', () => {
    expect(watchdogProcess(0)).toBe(100_000);
    expect(watchdogProcess(7)).toBe(100_007);
    expect(processRole(watchdogProcess(7))).toEqual({ kind: 'watchdog', of: 7 });
  });

  it('maps an op to the client process it belongs to', () => {
    expect(clientProcessOf(5)).toBe(5);
    expect(clientProcessOf(100_005)).toBe(5);
    expect(clientProcessOf('harness')).toBeNull();
  });
});
