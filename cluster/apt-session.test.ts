import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../test/support/eventually.ts';

/**
 * Provisioning with a stand-in apt-get (a script that logs its calls and the signals it gets), inside a private mount
 * namespace whose /usr/sbin is an empty tmpfs: the harness's policy-rc.d lands there, the machine's own is never
 * touched, and no package is installed. Root only (unshare, mount); CI runs as root.
 */
const asRoot = process.getuid?.() === 0;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-apt-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const FAKE_APT = `#!/bin/sh
echo "start $PPID $*" >> "$FAKE_LOG"
trap 'echo "got SIGINT" >> "$FAKE_LOG"' INT
/bin/sleep "$FAKE_SECONDS" &
wait $! || wait $!
echo "end $*" >> "$FAKE_LOG"
`;

interface Harness {
  log: string;
  done: Promise<{ stdout: string; stderr: string }>;
}

/** The CLI with `args`, its PATH the fake apt-get alone (so every requirement looks missing), /usr/sbin private. */
function harness(args: string[], seconds: number): Harness {
  const dir = fs.mkdtempSync(path.join(work, 'h-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'apt-get'), FAKE_APT, { mode: 0o755 });
  const log = path.join(dir, 'apt.log');
  fs.writeFileSync(log, '');
  const script = [
    '/usr/bin/mount -t tmpfs none /usr/sbin || exit 99',
    // setsid: the harness leads a process group, as a terminal's foreground job does; the test signals that group.
    `/usr/bin/setsid /usr/bin/env PATH="${bin}" FAKE_LOG="${log}" FAKE_SECONDS=${seconds} "${process.execPath}" --import tsx cli.ts ${args.join(' ')} --results="${path.join(dir, 'r')}"`,
    'echo "harness-exit=$?"',
    'if [ -e /usr/sbin/policy-rc.d ]; then echo POLICY-LEFT; else echo POLICY-GONE; fi',
  ].join('\n');
  const child = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return { log, done: new Promise((resolve) => child.on('exit', () => resolve({ stdout, stderr }))) };
}

const logLines = (log: string) => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);

describe.runIf(asRoot)('provisioning interrupted (root: a private mount namespace)', () => {
  it('Ctrl-C during apt: apt gets no SIGINT and finishes its call, no other starts, policy-rc.d is removed, exit 130', async () => {
    const h = harness(['--lock=redis', '--nemesis=none', '--time-limit=3'], 3);
    const start = await eventually(
      'the first apt-get call',
      () => logLines(h.log).find((l) => l.startsWith('start ')),
      60_000,
    );
    const harnessPid = Number(start.split(' ')[1]);
    // A terminal's Ctrl-C: SIGINT to the foreground process group.
    process.kill(-harnessPid, 'SIGINT');
    const r = await h.done;
    expect(r.stdout, r.stderr).toContain('harness-exit=130');
    expect(r.stdout).toContain('POLICY-GONE');
    const lines = logLines(h.log);
    expect(lines).not.toContain('got SIGINT');
    expect(lines.filter((l) => l.startsWith('end '))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('start '))).toHaveLength(1);
    expect(r.stderr).toMatch(/letting apt-get \(pid \d+\) finish first/);
  });

  it('server partitions provision nftables like the servers, saying so (the run refused: "apt-get install -y nftables")', async () => {
    const h = harness(['--lock=etcd', '--nemesis=isolate-leader', '--time-limit=10'], 0);
    const r = await h.done;
    const install = logLines(h.log).find((l) => l.startsWith('start ') && l.includes(' install '));
    expect(install, r.stderr).toMatch(/ nftables( |$)/);
    expect(r.stderr).toMatch(
      /fencepost: installing .*nftables.* with apt \(missing: .*nftables \(nft\) for server partitions/,
    );
    // The stand-in installed nothing: the run stops there, 254, before anything started.
    expect(r.stdout).toContain('harness-exit=254');
    expect(r.stdout).toContain('POLICY-GONE');
  });
});
