import { describe, expect, it } from 'vitest';
import { unshrunkArgv } from './shrink-command.ts';

describe("a shrink candidate's argv, before its own options", () => {
  it('drops each option the candidate sets, with its value, however it was spelled', () => {
    expect(unshrunkArgv(['--lock', 'redis', '--think=40', '--seed', '5', '--ttl', '800', '--shots=3'])).toEqual([
      '--ttl',
      '800',
    ]);
  });

  it('keeps the option after a dropped flag: --stop-on-lost-update takes no value', () => {
    expect(unshrunkArgv(['--stop-on-lost-update', '--watchdog', '--ttl=800'])).toEqual(['--watchdog', '--ttl=800']);
  });
});
