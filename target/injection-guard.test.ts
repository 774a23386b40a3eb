import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../common/pid-registry.ts';
import { InjectionGuard } from './injection-guard.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function guardDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-guard-test-'));
  dirs.push(d);
  return path.join(d, 'guard');
}

describe('the injection guard process', () => {
  it('is gone when stop() returns: a run that ended leaves no guard behind (CI saw one alive after the run)', async () => {
    const dir = guardDir();
    const guard = InjectionGuard.start(dir, { adapters: {}, commandLog: path.join(dir, 'commands.log'), runId: 'r1' });
    expect(isAlive(guard.pid)).toBe(true);
    expect(await guard.stop()).toBe(true);
    expect(isAlive(guard.pid)).toBe(false);
  });
});
