import { runCli } from '../test/support/cli-run.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../common/exit-codes.ts';

/**
 * An error nothing catches — thrown from an event-loop callback, as ENOSPC in the journal write from the IPC
 * handler would be — at each phase of a real run through the CLI: the process-level handler heals, stops every
 * client and server the run started, keeps the history, and exits 255 (never 1, the INVALID code).
 * The throw comes from the FENCEPOST_TEST_THROW hook in harness/stray-throw.ts.
 */
const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-crash-'));
afterAll(() => fs.rmSync(results, { recursive: true, force: true }));

/** Every live process whose command line or working folder names `dir` (clients: --run-dir; servers: nodes/…). */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (cmd.includes(dir) || cwd.startsWith(dir)) found.push(`${pid}: ${cmd}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * The run's length is not what is shown: setup and mid-run throw before the time limit matters (mid-run at the first
 * completed op), and teardown's history holds a completed op whatever the limit, since the time limit starts once
 * every client began its loop and a client stops only between iterations (it finishes the one it began). So the
 * least limit: 1 s (4 s before).
 */
const TIME_LIMIT_S = 1;

describe('an uncaught error in the harness', () => {
  for (const phase of ['setup', 'mid-run', 'teardown'] as const) {
    it(`thrown in ${phase}: exit 255 with the error, no process of the run left, the history kept`, async () => {
      const out = path.join(results, phase);
      const { code, stderr } = await runCli(
        ['--lock=redis', '--nemesis=pause-client', '--nemesis-interval=300', `--time-limit=${TIME_LIMIT_S}`],
        { results: out, env: { FENCEPOST_TEST_THROW: phase } },
      );
      expect({ code, stderr }).toMatchObject({ code: EXIT.crashed });
      expect(stderr).toContain(`injected throw (${phase})`);
      const lockDir = path.join(out, 'redis');
      const runDir = path.join(lockDir, fs.readdirSync(lockDir)[0]);
      expect(processesIn(runDir)).toEqual([]);
      const test = JSON.parse(fs.readFileSync(path.join(runDir, 'test.json'), 'utf8')) as { failed?: boolean };
      expect(test.failed).toBe(true);
      if (phase !== 'setup') {
        const history = fs.readFileSync(path.join(runDir, 'history.jsonl'), 'utf8');
        expect(history).toMatch(/"type":"ok"/);
      }
    }, 90_000);
  }
});
