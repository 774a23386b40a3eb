import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { parseExpectations } from './expectations.ts';
import { parseJsonWithLines } from '../common/json-lines.ts';
import { argvOf } from '../harness/run-overrides.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-expect-'));
fs.writeFileSync(path.join(dir, 'our-lock.ts'), 'export default {};\n');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const parse = (text: string) => parseExpectations(text, 'fencepost.expectations.json', dir, dir);

function error(text: string): HarnessError {
  try {
    parse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessError);
    return err as HarnessError;
  }
  throw new Error('expected the file to be refused');
}

describe('parseJsonWithLines', () => {
  it('gives the line of each value by path, and the line and column of a syntax error', () => {
    const doc = parseJsonWithLines('{\n  "cells": [\n    { "lock": "redis",\n      "expect": "safe" }\n  ]\n}');
    expect(doc.value).toEqual({ cells: [{ lock: 'redis', expect: 'safe' }] });
    expect(doc.lineOf.get('cells[0]')).toBe(3);
    expect(doc.lineOf.get('cells[0].expect')).toBe(4);
    expect(() => parseJsonWithLines('{\n  "a": 1,\n  "b" 2\n}')).toThrow(
      expect.objectContaining({ line: 3, column: 7 }),
    );
  });
});

describe('parseExpectations', () => {
  it("reads overrides and the user's own plugin cells, with where each came from", () => {
    const cells = parse(`{
  "cells": [
    { "lock": "redis", "fault": "pause-holder", "expect": "safe", "why": "we trust the watchdog" },
    { "lock": "./our-lock.ts", "fault": "pause-holder", "fencing": true, "expect": "safe" }
  ]
}`);
    expect(cells).toEqual([
      {
        lock: 'redis',
        fault: 'pause-holder',
        fencing: false,
        expect: 'safe',
        why: 'we trust the watchdog',
        from: 'fencepost.expectations.json:3',
      },
      {
        lock: './our-lock.ts',
        fault: 'pause-holder',
        fencing: true,
        expect: 'safe',
        from: 'fencepost.expectations.json:4',
      },
    ]);
  });

  it('refuses a malformed file with exit 254, naming the line and the field', () => {
    const wrongExpect = error(
      '{\n  "cells": [\n    { "lock": "redis", "fault": "clock",\n      "expect": "maybe" }\n  ]\n}',
    );
    expect(wrongExpect.exitCode).toBe(254);
    expect(wrongExpect.message).toBe(
      'fencepost.expectations.json line 4, cells[0].expect: "expect" must be "safe" (no lost update) or "lost" (lost updates must show up); got "maybe".',
    );
    expect(error('{ "cells": [ { "lock": "redis", "fault": "pause-holdr", "expect": "lost" } ] }').message).toContain(
      'line 1, cells[0].fault: "fault" must be one fault of pause-holder',
    );
    expect(error('{\n"cells": [\n{ "lock": "mylock", "fault": "none", "expect": "safe" }]}').message).toContain(
      'line 3, cells[0].lock: unknown lock "mylock"',
    );
    expect(error('{"cells": [{ "lock": "./missing.ts", "fault": "none", "expect": "safe" }]}').message).toContain(
      'cells[0].lock: plugin ./missing.ts not found',
    );
    expect(
      error('{"cells": [\n{ "lock": "etcd", "fault": "none", "expect": "safe", "fenced": true }]}').message,
    ).toContain('line 2, cells[0].fenced: unknown field "fenced"');
    expect(
      error(
        '{"cells": [\n{ "lock": "etcd", "fault": "none", "expect": "safe" },\n{ "lock": "etcd", "fault": "none", "expect": "lost" }]}',
      ).message,
    ).toContain('line 3, cells[1]: the same cell as cells[0]');
    const syntax = error('{\n  "cells": [\n    { "lock": "redis" "fault": "clock" }\n  ]\n}');
    expect(syntax.exitCode).toBe(254);
    expect(syntax.message).toMatch(/^fencepost\.expectations\.json line 3, column 23: not valid JSON/);
    expect(error('[]').message).toContain('line 1, the file: must be a JSON object with a "cells" array');
  });
});

describe('maxStallMs: a liveness bound per cell', () => {
  it("is read, refused when not a whole number of ms, and reaches the cell's runs as --max-stall", async () => {
    const [u] = parse('{"cells": [{ "lock": "etcd", "fault": "pause-node", "expect": "safe", "maxStallMs": 5000 }]}');
    expect(u).toMatchObject({ lock: 'etcd', fault: 'pause-node', maxStallMs: 5000 });
    expect(
      error('{"cells": [\n{ "lock": "etcd", "fault": "none", "expect": "safe", "maxStallMs": "5s" }]}').message,
    ).toBe(
      'fencepost.expectations.json line 2, cells[0].maxStallMs: "maxStallMs" must be a whole number of ms from 1 to 86400000 (--max-stall); got "5s".',
    );
    const { nightlyPlan } = await import('./nightly-plan.ts');
    const plan = nightlyPlan([u], 'faults');
    const cell = plan.find((c) => c.lock === 'etcd' && c.fault === 'pause-node' && !c.fencing);
    const args = (c: typeof cell) => argvOf(c?.col.overrides ?? {});
    expect(args(cell)).toContain('--max-stall=5000');
    expect(plan.filter((c) => args(c).some((a) => a.startsWith('--max-stall')))).toHaveLength(1);
  });
});
