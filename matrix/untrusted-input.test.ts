import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { JsonSyntaxError, parseJsonWithLines } from '../common/json-lines.ts';
import { expectationsPath, parseExpectations } from '../nightly/expectations.ts';
import { renderComparison } from '../nightly/nightly-comparison.ts';
import { nightlyExit, readNightlyFiles, type NightlyCell, type NightlyResult } from '../nightly/nightly-result.ts';
import { renderJunit } from '../nightly/nightly-junit.ts';
import { renderSummary } from '../nightly/nightly-summary.ts';
import { parseCommandLine } from '../cli/command-line.ts';

/** Files the nightly job reads but did not write (a user's expectations, a downloaded baseline): each mistake is 254. */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-untrusted-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function badArgument(fn: () => unknown): HarnessError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(HarnessError);
  expect((caught as HarnessError).exitCode).toBe(EXIT.badArguments);
  return caught as HarnessError;
}

const cell = (extra: Record<string, unknown> = {}): NightlyCell =>
  ({
    index: 0,
    lock: 'redis',
    fault: 'pause-holder',
    fencing: false,
    expected: 'lost',
    observed: 'lost',
    matched: true,
    from: 'oracle',
    decided: 'measured',
    runDir: 'redis/2026-11-30T01-00-00.000Z',
    lostUpdates: 3,
    staleWritesRejected: 0,
    acquireP50: 1.2,
    acquireP99: 3,
    faultHits: 2,
    ...extra,
  }) as NightlyCell;
const night = (cells: unknown[]): NightlyResult =>
  ({
    version: 1,
    seed: 1,
    shard: null,
    settings: [],
    command: 'nightly',
    startedAt: '2026-11-30T01:00:00.000Z',
    wallMs: 1,
    expectationsFile: null,
    cells,
  }) as NightlyResult;
function nightDir(name: string, content: string): string {
  const d = path.join(tmp, name);
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, 'nightly.json'), content);
  return d;
}

describe('bad input files are bad arguments (254) that name the file and the problem', () => {
  it('an expectations file nested 100 000 deep: a syntax error with its line, not a stack overflow', () => {
    const deep = `{"cells":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(() => parseJsonWithLines(deep)).toThrow(JsonSyntaxError);
    expect(() => parseJsonWithLines(deep)).toThrow(/nesting deeper than 64 levels/);
    const err = badArgument(() => parseExpectations(deep, 'e.json', tmp));
    expect(err.message).toMatch(/^e\.json line 1, column \d+: not valid JSON: nesting deeper than 64 levels/);
  });

  it('a "__proto__" key is a key, as JSON.parse has it, not the prototype', () => {
    const { value } = parseJsonWithLines('{"__proto__": {"polluted": true}}');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(['__proto__']);
    expect((value as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('--expectations naming a folder', () => {
    const err = badArgument(() => expectationsPath(tmp));
    expect(err.message).toBe(`--expectations=${tmp}: not a file (a folder?).`);
  });

  it('a nightly.json that is not JSON, or whose cells have fields of the wrong type or a runDir that is a URL', () => {
    expect(badArgument(() => readNightlyFiles(nightDir('cut', '{'))).message).toMatch(
      /cut\/nightly\.json: not valid JSON \(/,
    );
    expect(badArgument(() => readNightlyFiles(nightDir('null', 'null'))).message).toMatch(/not a nightly result/);
    const hostile = [
      ['lost', { lostUpdates: '<img src=x onerror=alert(1)>' }, 'cells[0].lostUpdates is not a number'],
      ['hits', { faultHits: '<b>2</b>' }, 'cells[0].faultHits is not a number'],
      [
        'js',
        { runDir: 'javascript:alert(2)' },
        'cells[0].runDir "javascript:alert(2)" is not a run folder relative to the night',
      ],
      ['abs', { runDir: '/etc' }, 'cells[0].runDir "/etc" is not a run folder relative to the night'],
      ['p50', { acquireP50: 'slow' }, 'cells[0].acquireP50 is not a number'],
      ['wall time', { wallMs: '10 s' }, 'cells[0].wallMs is not a number'],
      ['live', { liveness: { recoveryMaxMs: 'slow' } }, 'cells[0].liveness.recoveryMaxMs is not a number'],
      [
        'promise',
        { promise: { broken: '<b>9</b>', outlived: 0, unknown: 0, known: true } },
        'cells[0].promise.broken is not a number',
      ],
    ] as const;
    for (const [name, extra, problem] of hostile) {
      const d = nightDir(name, JSON.stringify(night([cell(extra)])));
      expect(badArgument(() => readNightlyFiles(d)).message).toBe(`${path.join(d, 'nightly.json')}: ${problem}.`);
    }
    expect(badArgument(() => readNightlyFiles(nightDir('cellnull', JSON.stringify(night([null]))))).message).toMatch(
      /cells\[0\] is not an object/,
    );
    // A well-formed night still reads.
    expect(readNightlyFiles(nightDir('good', JSON.stringify(night([cell()]))))[0].result.cells).toHaveLength(1);
  });
});

describe('comparison.html takes nothing from the baseline unescaped', () => {
  it('escapes its numbers and makes every run link relative (./), so no scheme can start it', () => {
    const tonight = night([cell()]);
    const baseline = night([
      cell({ lostUpdates: '<img src=x onerror=alert(1)>', faultHits: '<b>2</b>', runDir: 'javascript:alert(2)' }),
    ]);
    const html = renderComparison(tonight, baseline, { tonightDir: tmp, baselineDir: tmp, outDir: tmp });
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>2</b>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain('href="./javascript:alert(2)/report.html"');
    expect(html).toContain('href="./redis/2026-11-30T01-00-00.000Z/report.html"');
  });
});

describe("a shard's nightly.json checked field by field before a merge trusts it (N12)", () => {
  it.each([
    ['settings', { settings: 5 }, 'settings is not a list of strings'],
    ['seed', { seed: 2 ** 31 }, `seed ${2 ** 31} is not a whole number from 0 to ${2 ** 31 - 1}`],
    [
      'shard count',
      { shard: { index: 1, count: 100_000_000 } },
      'shard {"index":1,"count":100000000} is not null or {"index": i, "count": n} with 1 ≤ i ≤ n ≤ 64',
    ],
    [
      'shard strings',
      { shard: { index: '1', count: 'x' } },
      'shard {"index":"1","count":"x"} is not null or {"index": i, "count": n} with 1 ≤ i ≤ n ≤ 64',
    ],
    ['wall time', { wallMs: 'long' }, 'wallMs is not a number of ms'],
    ['runs', { cells: [cell({ runs: 'abc' })] }, 'cells[0].runs is not a list'],
    [
      'run folder',
      { cells: [cell({ runs: [{ runDir: '/etc', seed: 1, lostUpdates: 0, staleWritesRejected: 0, seen: 'safe' }] })] },
      'cells[0].runs[0].runDir "/etc" is not a run folder relative to the night',
    ],
    [
      'observed',
      { cells: [cell({ observed: 'lost\n\n## All good' })] },
      'cells[0].observed "lost\\n\\n## All good" is not one of safe, lost, invalid, starved, unknown, failed, refuse, accepted, not run',
    ],
  ])('%s: 254 naming the field (it crashed with 255, or aborted at 4 GB)', (name, fields, problem) => {
    const d = nightDir(`n12-${name.replace(/\W/g, '-')}`, JSON.stringify({ ...night([cell()]), ...fields }));
    expect(badArgument(() => readNightlyFiles(d)).message).toBe(`${path.join(d, 'nightly.json')}: ${problem}.`);
  });

  it('a night with no measured cell is inconclusive (2), not "every measured cell matched" (0)', () => {
    expect(nightlyExit([])).toBe(EXIT.unknown);
    expect(nightlyExit([cell({ decided: 'construction', observed: 'not run', expected: 'n/a' })])).toBe(EXIT.unknown);
    expect(nightlyExit([cell()])).toBe(EXIT.valid);
    expect(renderSummary(night([]), '.')).toMatch(
      /^## fencepost nightly: ⚠️ no cell was measured: the night decided nothing \(exit 2\)/,
    );
  });
});

describe('--shard (N13)', () => {
  it.each(['1/1000000', '1/99999999999999999999', '65/65', '1/65'])(
    '--shard=%s: 254 before anything loads (255 after)',
    (shard) => {
      const err = badArgument(() => parseCommandLine(['nightly', `--shard=${shard}`]));
      expect(err.message).toContain('--shard must be <i>/<n> with 1 ≤ i ≤ n ≤ 64');
    },
  );

  it('--shard=64/64, the most, is taken', () => {
    expect(parseCommandLine(['nightly', '--shard=64/64']).shard).toEqual({ index: 64, count: 64 });
  });
});

describe('junit.xml and summary.md take nothing from a night unescaped (N14)', () => {
  it('a seed cannot close its attribute and forge a test case', () => {
    const forged = { ...night([cell()]), seed: '7"/><testcase name="forged-pass"/><x a="' } as unknown as NightlyResult;
    const xml = renderJunit(forged, '.');
    expect(xml).not.toContain('<testcase name="forged-pass"/>');
    expect(xml).toContain(
      '<property name="seed" value="7&quot;/&gt;&lt;testcase name=&quot;forged-pass&quot;/&gt;&lt;x a=&quot;"/>',
    );
    expect(xml.match(/<testcase /g)).toHaveLength(1);
  });

  it('no heading, link, image or HTML of its own: a cell text stays one escaped table cell', () => {
    const text =
      'lost\n\n## All good ✅ [click](https://evil.example)\n![](https://evil.example/track.png) <img src=x>';
    const md = renderSummary(
      night([cell({ matched: false, observed: 'safe', note: text, lock: text, from: text })]),
      '.',
    );
    expect(md.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      '## fencepost nightly: ❌ a cell contradicts its expectation (exit 1)',
      '### Needs a look',
      '### Every measured cell',
    ]);
    expect(md).not.toMatch(/(^|[^\\])!\[/);
    expect(md).not.toMatch(/(^|[^\\])\]\(/);
    expect(md).not.toMatch(/(^|[^\\])<img/);
    expect(md).toContain(
      '\\#\\# All good ✅ \\[click\\](https://evil.example) \\!\\[\\](https://evil.example/track.png) \\<img src=x>',
    );
  });
});

describe('which build of a foreign lock each night ran', () => {
  it('the comparison and the summary name a cell whose lock changed build since the baseline', () => {
    const tonight = night([cell({ lock: 'kazoo', lockBuild: 'bbbbbbbbbbbb' })]);
    const baseline = night([cell({ lock: 'kazoo', lockBuild: 'aaaaaaaaaaaa' })]);
    const html = renderComparison(tonight, baseline, { tonightDir: tmp, baselineDir: tmp, outDir: tmp });
    expect(html).toContain('lock build aaaaaaaaaaaa → bbbbbbbbbbbb');
    expect(html).toContain('in 1 the lock in another language ran another build than the baseline');
    expect(renderSummary(tonight, '.', baseline)).toContain(
      '- kazoo × pause-holder: its lock ran another build (lock build aaaaaaaaaaaa → bbbbbbbbbbbb)',
    );
    const same = renderComparison(tonight, tonight, { tonightDir: tmp, baselineDir: tmp, outDir: tmp });
    expect(same).not.toContain('lock build');
  });

  it('a lockBuild that is not 12 hex digits is refused (254)', () => {
    const d = nightDir('lockbuild', JSON.stringify(night([cell({ lockBuild: '<b>x</b>' })])));
    expect(badArgument(() => readNightlyFiles(d)).message).toContain('cells[0].lockBuild is not 12 hex digits');
  });
});
