import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../harness/run-argv.ts';
import { dryRun } from '../harness/target-dry-run.ts';
import { CommandLog } from './command-log.ts';
import { healthPlan, probeHealth } from './health-probe.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A target file with a health probe `./health.sh` (exit `$FP_HEALTH_EXIT`) and an exec adapter for pause-node. */
function targetWithProbe(): { dir: string; file: string } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-health-')));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'health.sh'), '#!/bin/sh\nexit "${FP_HEALTH_EXIT:-0}"\n', { mode: 0o755 });
  const file = path.join(dir, 'target.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      name: 'probe',
      'i-own-this': true,
      allowHosts: ['127.0.0.1'],
      keyPrefix: 'fp-probe/',
      servers: { redis: { endpoints: [{ name: 'r0', host: '127.0.0.1', port: 16390, node: '16390' }] } },
      adapters: {
        sh: {
          type: 'exec',
          commands: {
            pause: ['./sig.sh', '{node}', 'STOP'],
            resume: ['./sig.sh', '{node}', 'CONT'],
            evidence: ['./ps.sh', '{node}'],
          },
        },
      },
      serverFaults: { 'pause-node': 'sh' },
      health: { command: ['./health.sh'], intervalMs: 1000, failures: 2 },
    }),
  );
  return { dir, file };
}

describe('the health probe is a command the run executes, listed and logged like the others (audit R16)', () => {
  it('--dry-run prints it, and its string is the one each execution is logged with', async () => {
    const { dir, file } = targetWithProbe();
    const planned = await dryRun(
      resolveConfig(['--lock=redis', `--target=${file}`, '--nemesis=pause-node', '--dry-run']),
    );
    expect(planned.lines).toContain(`  $ ${dir}/health.sh`);
    expect(planned.lines).toContain('the health probe, executed on this machine every 1000 ms while the clients run:');
    expect(planned.commands).toContain(`${dir}/health.sh`);

    const log = path.join(dir, 'commands.jsonl');
    const probe = { command: ['./health.sh'], cwd: dir, intervalMs: 1000, failures: 2 };
    expect(await probeHealth(probe, new CommandLog(log))).toEqual({ ok: true, said: 'exit 0' });
    process.env.FP_HEALTH_EXIT = '3';
    try {
      expect(await probeHealth(probe, new CommandLog(log))).toEqual({ ok: false, said: 'exit 3' });
    } finally {
      delete process.env.FP_HEALTH_EXIT;
    }
    const logged = CommandLog.read(log);
    expect(logged.map((c) => [c.action, c.command, c.ok])).toEqual([
      ['health', `${dir}/health.sh`, true],
      ['health', `${dir}/health.sh`, false],
    ]);
    expect(planned.commands).toContain(healthPlan(probe).command);
  });

  it('a probe whose program is missing reads "not found", not "exit undefined"', async () => {
    const probe = { command: ['./no-such-probe.sh'], cwd: os.tmpdir(), intervalMs: 1000, failures: 1 };
    expect(await probeHealth(probe, new CommandLog(null))).toEqual({ ok: false, said: 'not found' });
  });
});
