import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandLog } from './command-log.ts';
import { ExecAdapter } from './exec-adapter.ts';
import { healthPlan } from './health-probe.ts';

// Audit R17: `"pause": ["faults/sig.sh", …]` beside the target file was refused by preflight ("not found"), which
// looked in the current folder, while the command itself would have run from the target file's folder.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-relative-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'faults'));
fs.writeFileSync(path.join(dir, 'faults', 'sig.sh'), '#!/bin/sh\necho "$1 $2" > "$(dirname "$0")/acted"\n', {
  mode: 0o755,
});

describe("a program naming a path without ./ is the target file's folder's", () => {
  const adapter = new ExecAdapter(
    {
      type: 'exec',
      name: 'sh',
      commands: { pause: ['faults/sig.sh', '{node}', 'STOP'], resume: ['faults/sig.sh', '{node}', 'CONT'] },
      cwd: dir,
      timeoutMs: 10_000,
    },
    new CommandLog(null),
  );

  it('preflight finds it, the plan prints it, and the run executes that one', async () => {
    expect(process.cwd()).not.toBe(dir);
    expect(await adapter.preflight(['r0'])).toEqual([]);
    expect(adapter.plan('pause', 'r0').command).toBe(`${path.join(dir, 'faults', 'sig.sh')} r0 STOP`);
    await adapter.inject('pause', 'r0');
    expect(fs.readFileSync(path.join(dir, 'faults', 'acted'), 'utf8')).toBe('r0 STOP\n');
  });

  it('the health probe the same; a bare name stays a PATH lookup', () => {
    const probe = { cwd: dir, intervalMs: 1000, failures: 2 };
    expect(healthPlan({ ...probe, command: ['faults/sig.sh', 'x'] }).command).toBe(
      `${path.join(dir, 'faults', 'sig.sh')} x`,
    );
    expect(healthPlan({ ...probe, command: ['redis-cli', 'ping'] }).command).toBe('redis-cli ping');
  });
});
