import { beforeEach, describe, expect, it } from 'vitest';
import { LOCK_STDERR_BYTES, StderrLog, resetClientStderrBytes } from './stderr-log.ts';

describe('StderrLog: a lock process stderr in the client log, capped', () => {
  beforeEach(() => resetClientStderrBytes());

  it('writes lines up to the process cap, then keeps only the last 20 and says what it dropped at the exit', () => {
    const out: string[] = [];
    const log = new StderrLog(42, (t) => out.push(t));
    const line = 'e'.repeat(99);
    const fits = Math.floor(LOCK_STDERR_BYTES / 100);
    for (let i = 0; i < fits + 1000; i++) log.line(i >= fits ? `${line.slice(0, 90)}${i}` : line);
    expect(out.length).toBe(fits);
    log.close();
    const note = out.at(-1)!;
    expect(note).toMatch(
      /^\[fencepost: dropped 1000 lines \(\d+ bytes\) of lock process 42's stderr past its cap of 1048576 bytes; its last 20:\]\n/,
    );
    expect(note.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`${fits + 999}$`));
    expect(note.split('\n').length).toBe(22);
  });

  it('shares one cap among every lock process of a client (a client restarts its lock process after each info)', () => {
    const out: string[] = [];
    for (let pid = 1; pid <= 3; pid++) {
      const log = new StderrLog(pid, (t) => out.push(t), 250);
      for (let i = 0; i < 3; i++) log.line('x'.repeat(49));
      log.close();
    }
    const written = out.filter((l) => !l.startsWith('[fencepost'));
    expect(written.join('').length).toBeLessThanOrEqual(250);
    expect(out.at(-1)).toMatch(/past its client's cap of 250 bytes for all its lock processes/);
  });
});
