import { describe, expect, it } from 'vitest';
import { checkRun } from '../checkers/check-run.ts';
import { paintVerdict, wantsColour } from './verdict-colour.ts';
import { pausedHolderHistory } from '../test/support/paused-holder-history.ts';
import { resolveConfig } from './run-argv.ts';
import { printRunOutput, type Terminal } from './run-output.ts';
import { runSummary } from './run-summary.ts';

const invalid = checkRun(pausedHolderHistory({ fenced: false }), { fencing: false, token: 'none', exclusive: true });
const valid = checkRun(pausedHolderHistory({ fenced: true }), { fencing: true, token: 'monotonic', exclusive: true });

/** A terminal whose two streams are recorded; each a TTY or not. */
function terminal(tty: { out: boolean; err: boolean }, env: Record<string, string> = {}) {
  const written = { out: '', err: '' };
  const t: Terminal = {
    out: { isTTY: tty.out, write: (s: string) => (written.out += s) },
    err: { isTTY: tty.err, write: (s: string) => (written.err += s) },
    env,
  };
  return { t, written };
}

const config = (...argv: string[]) => resolveConfig(['--lock=redis', '--nemesis=pause-holder', '--seed=5', ...argv]);

describe('the verdict in colour', () => {
  it('colours VALID green, INVALID red, UNKNOWN yellow', () => {
    expect(paintVerdict('VALID', true)).toBe('\x1b[1;32mVALID\x1b[0m');
    expect(paintVerdict('INVALID', true)).toBe('\x1b[1;31mINVALID\x1b[0m');
    expect(paintVerdict('UNKNOWN', true)).toBe('\x1b[1;33mUNKNOWN\x1b[0m');
    expect(paintVerdict('INVALID', false)).toBe('INVALID');
  });

  it('only on a terminal, and not when NO_COLOR is set to anything but empty (no-color.org)', () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({}, {})).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
  });

  // The summary had no colour at all; piped, it must stay byte for byte what it was.
  it("colours the summary's verdict word on a terminal, and nothing else of it", () => {
    const { t, written } = terminal({ out: true, err: false });
    printRunOutput(config(), '/tmp/run', invalid, ['pause-holder'], t);
    const plain = runSummary(config(), '/tmp/run', invalid, ['pause-holder']);
    expect(written.out).toBe(`${plain.replace('  INVALID  ', '  \x1b[1;31mINVALID\x1b[0m  ')}\n`);
    expect(written.out.split('\x1b[')).toHaveLength(3);
  });

  it('writes the summary unchanged when piped or NO_COLOR is set', () => {
    const plain = `${runSummary(config(), '/tmp/run', invalid, ['pause-holder'])}\n`;
    const piped = terminal({ out: false, err: false });
    printRunOutput(config(), '/tmp/run', invalid, ['pause-holder'], piped.t);
    expect(piped.written).toEqual({ out: plain, err: '' });
    const noColour = terminal({ out: true, err: true }, { NO_COLOR: '1' });
    printRunOutput(config(), '/tmp/run', invalid, ['pause-holder'], noColour.t);
    expect(noColour.written.out).toBe(plain);
    expect(plain).not.toContain('\x1b');
  });
});

describe('--json', () => {
  it('prints one JSON object on stdout and the summary on stderr', () => {
    const { t, written } = terminal({ out: false, err: false });
    printRunOutput(config('--json'), '/tmp/run', invalid, ['pause-holder'], t);
    expect(written.out.endsWith('}\n')).toBe(true);
    expect(written.out.trim().split('\n')).toHaveLength(1);
    expect(written.err).toBe(`${runSummary(config('--json'), '/tmp/run', invalid, ['pause-holder'])}\n`);
    const json = JSON.parse(written.out);
    expect(json).toMatchObject({
      format: 'fencepost-run-summary/1',
      verdict: 'INVALID',
      exitCode: 1,
      unknownReasons: [],
      lock: 'redis',
      fencing: false,
      seed: 5,
      faults: ['pause-holder'],
      runDir: '/tmp/run',
      report: '/tmp/run/report.html',
      results: '/tmp/run/results.json',
      reproduce: 'npm run jepsen -- repro /tmp/run',
    });
    // The summary's own "what to do" line, word for word.
    expect(written.err).toContain(`  what to do: ${json.nextStep}\n`);
    expect(json.nextStep).toMatch(/^fence the write: redis has no fencing token, .* See docs\/locks\.md\.$/);
    expect(json.counts).toEqual({
      ops: {
        total: invalid.opCounts.total,
        ok: invalid.opCounts.ok,
        fail: invalid.opCounts.fail,
        info: invalid.opCounts.info,
      },
      lostUpdates: invalid.lostUpdates,
      lostUpdatesByFault: invalid.lostUpdatesByFault ?? {},
      staleWritesRejected: invalid.staleWritesRejected,
      overlaps: invalid.overlaps,
      confirmedOverlaps: invalid.confirmedOverlaps,
      faultWindows: invalid.faults.length,
    });
    expect(json.counts.lostUpdates).toBeGreaterThan(0);
    expect(json.replay).toMatch(/^npm run jepsen -- .*--seed=5/);
  });

  it('gives a VALID run exit code 0 and no reproduce command', () => {
    const { t, written } = terminal({ out: true, err: true });
    printRunOutput(config('--json', '--fencing'), '/tmp/run', valid, ['pause-holder'], t);
    expect(JSON.parse(written.out)).toMatchObject({ verdict: 'VALID', exitCode: 0, fencing: true, reproduce: null });
    // The JSON is never coloured; the summary on a terminal stderr is.
    expect(written.out).not.toContain('\x1b');
    expect(written.err).toContain('\x1b[1;32mVALID\x1b[0m');
  });
});
