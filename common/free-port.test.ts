import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RESERVATION_MS, freePorts, serverPortRange } from './free-port.ts';

const dirs: string[] = [];
function reservations(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-ports-test-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

// A narrow range of the server range, different per test file run, so parallel unit files do not meet.
const base = 20_000 + (process.pid % 1_000) * 10;

describe('freePorts', () => {
  it('takes its ports below the ephemeral range the kernel hands out by itself', () => {
    const file = path.join(reservations(), 'range');
    fs.writeFileSync(file, '32768\t60999\n');
    expect(serverPortRange(file)).toEqual([20_000, 32_767]);
    fs.writeFileSync(file, '10000 60999\n');
    expect(serverPortRange(file)).toEqual([1_025, 65_535]);
    expect(serverPortRange(path.join(reservations(), 'absent'))).toEqual([20_000, 32_767]);
    const [low, high] = serverPortRange();
    expect(high).toBeLessThan(
      Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]),
    );
    expect(low).toBeGreaterThan(1_024);
  });

  it('gives n distinct ports in the range and reserves each one', async () => {
    const dir = reservations();
    const ports = await freePorts(4, { range: [base, base + 9], reservations: dir, start: 0 });
    expect(ports).toEqual([base, base + 1, base + 2, base + 3]);
    expect(fs.readdirSync(dir).sort()).toEqual(ports.map(String).sort());
  });

  it('skips a port another run reserved a moment ago, and takes over a reservation that expired', async () => {
    const dir = reservations();
    const now = Date.now();
    fs.writeFileSync(path.join(dir, String(base)), '1\n');
    fs.writeFileSync(path.join(dir, String(base + 1)), '1\n');
    const old = (now - RESERVATION_MS - 1_000) / 1000;
    fs.utimesSync(path.join(dir, String(base + 1)), old, old);
    const ports = await freePorts(2, { range: [base, base + 9], reservations: dir, start: 0, now: () => now });
    expect(ports).toEqual([base + 1, base + 2]);
  });

  it('two runs choosing at the same moment get no port in common', async () => {
    const dir = reservations();
    const choice = { range: [base, base + 9] as [number, number], reservations: dir, start: 0 };
    const [a, b] = await Promise.all([freePorts(4, choice), freePorts(4, choice)]);
    expect(new Set([...a, ...b]).size).toBe(8);
  });

  it('skips a port something listens on, and releases its reservation', async () => {
    const dir = reservations();
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(base + 5, '127.0.0.1', () => r()));
    try {
      const ports = await freePorts(1, { range: [base + 5, base + 6], reservations: dir, start: 0 });
      expect(ports).toEqual([base + 6]);
      expect(fs.readdirSync(dir)).toEqual([String(base + 6)]);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('says so when the range has too few free ports', async () => {
    const dir = reservations();
    fs.writeFileSync(path.join(dir, String(base + 8)), '1\n');
    await expect(freePorts(2, { range: [base + 8, base + 9], reservations: dir })).rejects.toThrow(
      `only 1 of 2 ports free in ${base + 8}–${base + 9}`,
    );
  });
});
