import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HarnessError } from '../../common/errors.ts';
import { Shutdown } from '../../common/shutdown.ts';
import { cleanup, type CleanupConfig } from './cleanup.ts';

const config = (over: Partial<CleanupConfig>): CleanupConfig => ({
  command: 'cleanup',
  help: false,
  resultsDir: fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-cleanup-test-')),
  data: false,
  target: null,
  deleteUnrecorded: false,
  ...over,
});

afterEach(() => vi.restoreAllMocks());

describe('cleanup --target', () => {
  it('refuses a target file before the machine-wide cleanup says anything (audit R22)', async () => {
    const said = vi.spyOn(console, 'log').mockImplementation(() => {});
    const c = config({ target: path.join(os.tmpdir(), 'no-such-target-file.json') });
    await expect(cleanup.run(c, new Shutdown())).rejects.toThrow(/target file .*no-such-target-file\.json/);
    expect(said).not.toHaveBeenCalled();
    fs.rmSync(c.resultsDir, { recursive: true, force: true });
  });

  it('--delete-unrecorded without --target is refused: it is about keys on a target', async () => {
    const c = config({ deleteUnrecorded: true });
    const err = await cleanup.run(c, new Shutdown()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).message).toBe('--delete-unrecorded goes with --target: it is about keys on a target');
    fs.rmSync(c.resultsDir, { recursive: true, force: true });
  });
});
