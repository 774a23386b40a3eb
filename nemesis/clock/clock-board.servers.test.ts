import { runCli } from '../../test/support/cli-run.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClockBoard } from './clock-board.ts';

/**
 * The clock shim is built into a private folder of its own — never the run dir, whose path may hold a space or a
 * colon (which LD_PRELOAD cannot carry) and which other users may reach — and checked before every spawn.
 */
const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});
/** A results folder with a space, a colon and non-ASCII in its path. */
function awkward(): string {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-awkward-'));
  made.push(base);
  fs.chmodSync(base, 0o755);
  const dir = path.join(base, 'My Runs: été');
  fs.mkdirSync(dir);
  return dir;
}

describe('ClockBoard', () => {
  it('builds the shim into a private folder whose path LD_PRELOAD can carry, and refuses a shim that changed', async () => {
    const runClock = path.join(awkward(), 'clock');
    const board = await ClockBoard.create(runClock);
    try {
      const env = board.env('client-0');
      expect(env.LD_PRELOAD).not.toMatch(/[\s:]/);
      expect(path.dirname(env.LD_PRELOAD)).toBe(board.dir);
      const st = fs.statSync(board.dir);
      expect([st.uid, (st.mode & 0o777).toString(8)]).toEqual([process.getuid!(), '755']);
      expect(fs.readFileSync(path.join(runClock, 'CLOCK-FILES-ARE-ELSEWHERE'), 'utf8').trim()).toBe(board.dir);
      // Swapped for another library: the next spawn is refused rather than preloading it.
      fs.appendFileSync(env.LD_PRELOAD, 'x');
      expect(() => board.env('client-1')).toThrow(/is not the file we built/);
      fs.chmodSync(board.dir, 0o777);
      expect(() => board.env('client-1')).toThrow(/is writable by others \(mode 777\)/);
    } finally {
      board.dispose();
    }
    expect(fs.existsSync(board.dir)).toBe(false);
  });

  it('a run with clock faults under a results path with a space, a colon and non-ASCII gets a verdict, not 255', async () => {
    const results = awkward();
    const { code, stderr } = await runCli(
      ['--lock=redis', '--nemesis=clock', '--nemesis-interval=500', '--time-limit=5'],
      { results },
    );
    expect({ code, stderr }).toMatchObject({ code: expect.any(Number) });
    expect([0, 1, 2], stderr).toContain(code);
    const runDir = fs.realpathSync(path.join(results, 'latest'));
    const res = JSON.parse(fs.readFileSync(path.join(runDir, 'results.json'), 'utf8')) as {
      faultHits: Record<string, { fired: number }>;
    };
    expect(res.faultHits.clock.fired).toBeGreaterThan(0);
  }, 120_000);
});
