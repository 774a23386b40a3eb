import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../common/exit-codes.ts';
import { runCli } from '../test/support/cli-run.ts';

const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-load-'));
afterAll(() => fs.rmSync(results, { recursive: true, force: true }));

describe('a plugin whose module never finishes loading', () => {
  it('a top-level await that can never settle: refused with 254 and why, no run folder (it exited 0 with nothing)', async () => {
    const r = await runCli(['--lock=./test/fixtures/plugins/never-loads.mts', '--nemesis=none', '--time-limit=3'], {
      results,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(EXIT.badArguments);
    expect(r.stderr).toContain(
      'the module never finished loading: it awaits something that can never settle (nothing else was left to run)',
    );
    expect(fs.readdirSync(results)).toEqual([]);
  });
});
