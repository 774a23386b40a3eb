import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from './analyze.ts';
import { checkOptionsFor, checkRun } from '../checkers/check-run.ts';
import { inTimeOrder } from '../history/time-order.ts';
import { hasResults, readResults, runPath } from '../store/run-dir.ts';
import { RUN_FORMAT } from '../store/run-format.ts';
import { finalRead, history, twoWritersLoseOne } from '../test/support/test-history.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-analyze-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const jsonl = (ops: object[]) => ops.map((o) => JSON.stringify(o)).join('\n') + '\n';
const runDir = (name: string) => fs.mkdirSync(path.join(root, name), { recursive: true }) ?? path.join(root, name);

describe('analyze(runDir)', () => {
  it("writes the results checkRun gives for the run's history (in time order) and its test record", () => {
    const dir = runDir('lost');
    const test = { config: { fencing: false, concurrency: 2, minWrites: 1 }, faults: [] };
    // The journal as a crash left it: two ops out of time order (a late IPC message).
    const ops = twoWritersLoseOne();
    const shuffled = ops.map((o, i) => (i === 1 ? { ...o, time: ops[2].time + 1 } : o));
    fs.writeFileSync(runPath(dir, 'history'), jsonl(shuffled));
    fs.writeFileSync(runPath(dir, 'test'), JSON.stringify(test));
    const warnings: string[] = [];
    const analysis = analyze(dir, { warn: (l) => warnings.push(l) });
    // Search times differ from one check to the next; everything else is the same.
    const timeless = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'elapsedMs' ? 0 : x)));
    const expected = timeless(checkRun(inTimeOrder(shuffled), checkOptionsFor(test)));
    expect(analysis).toMatchObject({ ok: true, fencing: false });
    expect(timeless(readResults(dir))).toEqual({ format: RUN_FORMAT, ...expected });
    expect(readResults(dir).valid).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('names the lock and faults its record gives, for the "what to do" line; none without a lock', () => {
    const dir = runDir('named');
    fs.writeFileSync(runPath(dir, 'history'), jsonl(twoWritersLoseOne()));
    const test = { lock: 'redlock', config: { fencing: false, concurrency: 2, minWrites: 1 }, faults: ['clock'] };
    fs.writeFileSync(runPath(dir, 'test'), JSON.stringify(test));
    expect(analyze(dir)).toMatchObject({ ok: true, run: { lock: 'redlock', faults: ['clock'] } });
    fs.writeFileSync(runPath(dir, 'test'), JSON.stringify({ ...test, lock: undefined }));
    expect(analyze(dir)).toMatchObject({ ok: true, run: null });
  });

  it('without a readable test record a clean history cannot earn VALID: the reason leads, and is warned', () => {
    const dir = runDir('no-record');
    fs.writeFileSync(runPath(dir, 'history'), jsonl(history(finalRead(0, 100, 100, []))));
    const warnings: string[] = [];
    const analysis = analyze(dir, { warn: (l) => warnings.push(l) });
    expect(analysis.ok && analysis.results.valid).toBe('unknown');
    expect(analysis.ok && analysis.results.unknownReasons[0]).toMatch(
      /^test\.json unreadable \(test\.json is missing\)/,
    );
    expect(warnings).toHaveLength(1);
  });

  it('a dir with no history, or an empty one, is bad input: nothing is written', () => {
    const none = runDir('none');
    expect(analyze(none)).toEqual({ ok: false, problem: expect.stringMatching(/history\.jsonl does not exist/) });
    const empty = runDir('empty');
    fs.writeFileSync(runPath(empty, 'history'), '');
    expect(analyze(empty)).toEqual({ ok: false, problem: expect.stringMatching(/holds no operations/) });
    expect(hasResults(none) || hasResults(empty)).toBe(false);
  });

  it('refuses a test record of a newer format than it reads (exit 254), and leaves the results as they were', () => {
    const dir = runDir('newer');
    fs.writeFileSync(runPath(dir, 'history'), jsonl(history(finalRead(0, 100, 100, []))));
    fs.writeFileSync(runPath(dir, 'test'), JSON.stringify({ format: RUN_FORMAT + 1, config: {}, faults: [] }));
    fs.writeFileSync(runPath(dir, 'results'), '{"valid": true}');
    expect(() => analyze(dir)).toThrow(
      expect.objectContaining({
        name: 'HarnessError',
        kind: 'bad-arguments',
        exitCode: 254,
        message: expect.stringMatching(/test\.json has format \d+, newer than this fencepost reads/),
      }),
    );
    expect(fs.readFileSync(runPath(dir, 'results'), 'utf8')).toBe('{"valid": true}');
  });
});
