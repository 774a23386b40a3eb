import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { seededRandom } from '../common/random.ts';
import { Shutdown } from '../common/shutdown.ts';
import { initCommand, initFiles } from '../harness/init-command.ts';
import { OPTIONS, parseCommandLine, SUBCOMMANDS } from '../cli/command-line.ts';
import { nightlyCommand } from '../nightly/nightly.ts';
import { loadForeignLock } from '../workloads/load-strategy.ts';
import { runCli } from './support/cli-run.ts';

/**
 * Every input a user (or a downloaded artifact, or an untrusted clone) hands fencepost, generated: the option parser,
 * `nightly merge`, the manifest reader and `init`. Each must be taken, or refused as a bad argument (254) — never
 * an exception of another kind, which the CLI turns into 255 "a bug of ours". Seeded: a failure names the seed and
 * the input, and replays.
 */
const SEED = 20261204;
const CASES = 400;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-fuzz-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** 'ok', 254, or the unexpected error (what 255 would have been). */
async function outcome(fn: () => unknown): Promise<'ok' | 254 | string> {
  try {
    await fn();
    return 'ok';
  } catch (err) {
    if (err instanceof HarnessError && err.exitCode === EXIT.badArguments) return 254;
    return `${err instanceof HarnessError ? `HarnessError ${err.exitCode}` : 'crash'}: ${(err as Error)?.stack ?? String(err)}`;
  }
}

function picker(seed: number) {
  const r = seededRandom(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  return { r, int, pick };
}

/** Values that have broken parsers: empty, signs, radix prefixes, huge, fractional, unicode look-alikes, names of Object's own keys. */
const NASTY = [
  '',
  ' ',
  '-1',
  '0',
  '1',
  '+10',
  '1.5',
  '1e3',
  '0x10',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '2147483648',
  '１０',
  ' 10',
  '10 ',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'none',
  'default',
  'all',
  ',',
  ',,pause-holder',
  'redis',
  'Local',
  'local',
  'docker',
  '/proc/x',
  '/',
  '..',
  '../../etc',
  'a\u200bb',
  '🔒',
  '\0',
  '1/0',
  '0/3',
  '4/3',
  '1/1000000',
  '2/3',
  'yes',
  'false',
  'true',
  'exec:',
  'exec:/nonexistent',
  './x.ts',
  'x.json',
];

function randomArgv(seed: number): string[] {
  const { int, pick } = picker(seed);
  const names = OPTIONS.map((o) => o.name);
  const argv: string[] = [];
  if (int(3) === 0) argv.push(pick(Object.keys(SUBCOMMANDS)));
  if (int(6) === 0) argv.push(pick(['merge', 'x', '--', '-', '---lock=redis']));
  for (let i = int(5); i >= 0; i--) {
    const name = int(10) === 0 ? pick(['__proto__', 'constructor', 'lock\u200b', '🔒', '', 'Lock']) : pick(names);
    const form = int(4);
    if (form === 0) argv.push(`--${name}`);
    else if (form === 1) argv.push(`--${name}`, pick(NASTY));
    else argv.push(`--${name}=${pick(NASTY)}`);
  }
  return argv;
}

describe('the option parser, fuzzed', () => {
  it(`${CASES} generated command lines: each taken or refused with 254 (seed ${SEED})`, async () => {
    const bad: string[] = [];
    const seen = { ok: 0, refused: 0 };
    for (let i = 0; i < CASES; i++) {
      const argv = randomArgv(SEED + i);
      const got = await outcome(() => parseCommandLine(argv));
      if (got === 'ok') seen.ok++;
      else if (got === 254) seen.refused++;
      else bad.push(`${JSON.stringify(argv)} → ${got}`);
    }
    expect(bad).toEqual([]);
    // Not vacuous: the generator makes command lines of both kinds.
    expect(seen.ok).toBeGreaterThan(10);
    expect(seen.refused).toBeGreaterThan(10);
  });

  it("some of the audit's bad command lines, through the real CLI: 254 each, never 255", async () => {
    const lines = [
      ['--nemesis='],
      ['nightly', '--shard=1/1000000'],
      ['--lock=redis', '--nemesis=none', '--time-limit=3', '--results=/proc/fp-fuzz'],
      ['--lock=__proto__'],
      ['serve', '--port=80abc'],
    ];
    for (const argv of lines) {
      const r = await runCli(argv, { timeoutMs: 60_000 });
      expect({ argv, code: r.code }).toEqual({ argv, code: EXIT.badArguments });
    }
  });
});

/** A one-cell night as a shard writes it, to be mutated. */
function goodNight(): Record<string, unknown> {
  return {
    version: 1,
    seed: 7,
    shard: null,
    settings: ['--time-limit=10'],
    command: 'nightly',
    startedAt: '2026-12-04T01:00:00.000Z',
    wallMs: 1000,
    expectationsFile: null,
    cells: [
      {
        index: 0,
        lock: 'redis',
        fault: 'pause-holder',
        fencing: false,
        expected: 'lost',
        observed: 'lost',
        matched: true,
        from: 'oracle',
        decided: 'measured',
        runDir: 'redis/2026-12-04T01-00-00.000Z',
        lostUpdates: 3,
        staleWritesRejected: 0,
        acquireP50: 1.2,
        acquireP99: 3,
        faultHits: 2,
        runs: [
          {
            seed: 7,
            runDir: 'redis/2026-12-04T01-00-00.000Z',
            verdict: 'invalid',
            lostUpdates: 3,
            staleWritesRejected: 0,
            seen: 'lost',
            conclusive: true,
          },
        ],
      },
    ],
  };
}

const JUNK: unknown[] = [
  null,
  5,
  -1,
  1e8,
  2 ** 53,
  'abc',
  '',
  '<x>',
  '"/><y a="',
  [],
  [1, 'a'],
  {},
  { a: 1 },
  true,
  '/etc',
  'javascript:alert(1)',
];

/** One field somewhere in the night (top level, a cell, a run) replaced, removed or junked. */
function mutate(night: Record<string, unknown>, seed: number): Record<string, unknown> {
  const { int, pick } = picker(seed);
  const cell = (night.cells as Record<string, unknown>[])[0];
  const run = (cell.runs as Record<string, unknown>[])[0];
  for (let i = int(3); i >= 0; i--) {
    const target = pick([night, night, cell, cell, cell, run]);
    const key = pick(Object.keys(target));
    if (int(5) === 0) delete target[key];
    else target[key] = pick(JUNK);
  }
  if (int(10) === 0) night.cells = pick([[], 'abc', [null], [cell, cell]]);
  return night;
}

describe('nightly merge, fuzzed', () => {
  it(`${CASES / 4} mutated shards: each merged (exit 0, 1 or 2) or refused with 254 (seed ${SEED})`, async () => {
    const bad: string[] = [];
    let merged = 0;
    for (let i = 0; i < CASES / 4; i++) {
      const dir = path.join(work, `night-${i}`);
      fs.mkdirSync(dir);
      const night = mutate(goodNight(), SEED + i);
      fs.writeFileSync(path.join(dir, 'nightly.json'), JSON.stringify(night));
      const out = path.join(work, `merged-${i}`);
      const got = await outcome(async () => {
        const code = await nightlyCommand(
          parseCommandLine(['nightly', 'merge', dir, `--results=${out}`]),
          new Shutdown(),
          () => {},
        );
        if (![0, 1, 2].includes(code)) throw new Error(`exit ${code}`);
      });
      if (got === 'ok') merged++;
      else if (got !== 254) bad.push(`${JSON.stringify(night)} → ${got}`);
    }
    expect(bad).toEqual([]);
    // Some mutations leave a night that still reads (a field removed that may be absent): not all refused.
    expect(merged).toBeGreaterThan(0);
    expect(merged).toBeLessThan(CASES / 4);
  });
});

describe('the manifest reader, fuzzed', () => {
  it(`${CASES / 2} generated manifests: each loaded or refused with 254 (seed ${SEED})`, async () => {
    const fields = [
      'name',
      'command',
      'cwd',
      'needs',
      'servers',
      'token',
      'exclusive',
      'renews',
      'defaultFaults',
      'noTokenReason',
      'description',
      'extra',
      '__proto__',
    ];
    const values: unknown[] = [
      ...JUNK,
      ['/bin/sh', '-c', 'exit 0'],
      ['/usr/bin/python3', 'x.py'],
      [''],
      ['redis'],
      ['zk', 'etcd'],
      ['pg'],
      { redis: 1 },
      { redis: 0 },
      { zk: 3, etcd: 99 },
      { __proto__: 1 },
      'monotonic',
      'none',
      'version',
      ['pause-holder'],
      ['nope'],
      '.',
      '..',
    ];
    const bad: string[] = [];
    let loaded = 0;
    for (let i = 0; i < CASES / 2; i++) {
      const { int, pick } = picker(SEED + i);
      const m: Record<string, unknown> = { command: ['/bin/sh', '-c', 'exit 0'], needs: ['redis'], token: 'none' };
      for (let k = int(5); k >= 0; k--) {
        const f = pick(fields);
        if (int(4) === 0) delete m[f];
        else m[f] = pick(values);
      }
      const file = path.join(work, `manifest-${i}.json`);
      fs.writeFileSync(file, int(20) === 0 ? JSON.stringify(m).slice(0, int(40)) : JSON.stringify(m));
      const got = await outcome(() => loadForeignLock(file));
      if (got === 'ok') loaded++;
      else if (got !== 254) bad.push(`${fs.readFileSync(file, 'utf8')} → ${got}`);
    }
    expect(bad).toEqual([]);
    expect(loaded).toBeGreaterThan(0);
    expect(loaded).toBeLessThan(CASES / 2);
  });
});

describe('init, fuzzed', () => {
  it(`${CASES / 4} folders with files, links and folders where init writes: each written whole or refused with 254, nothing outside (seed ${SEED})`, async () => {
    let written = 0;
    const targets = [
      ...new Set(Object.keys(initFiles()).flatMap((f) => f.split('/').map((_, i, a) => a.slice(0, i + 1).join('/')))),
    ];
    const bad: string[] = [];
    for (let i = 0; i < CASES / 4; i++) {
      const { int, pick } = picker(SEED + i);
      const dir = path.join(work, `init-${i}`);
      const outside = path.join(work, `outside-${i}`);
      fs.mkdirSync(dir);
      fs.mkdirSync(outside);
      const planted: string[] = [];
      for (let k = int(3); k > 0; k--) {
        const t = pick(targets);
        const p = path.join(dir, t);
        if (fs.existsSync(path.dirname(p)) && !fs.lstatSync(path.dirname(p)).isSymbolicLink() && !fs.existsSync(p)) {
          const kind = int(4);
          try {
            if (kind === 0) fs.writeFileSync(p, 'x');
            else if (kind === 1) fs.symlinkSync(outside, p);
            else if (kind === 2) fs.symlinkSync(path.join(outside, 'dangling'), p);
            else fs.mkdirSync(p);
            planted.push(`${t}:${kind}`);
          } catch {
            // a parent is a file: that planted nothing
          }
        }
      }
      const got = await outcome(() => initCommand(dir, () => {}));
      if (got === 'ok') written++;
      const wroteOutside = fs.readdirSync(outside);
      if ((got !== 'ok' && got !== 254) || wroteOutside.length)
        bad.push(
          `${planted.join(' ')} → ${got}${wroteOutside.length ? `; wrote outside: ${wroteOutside.join(', ')}` : ''}`,
        );
    }
    expect(bad).toEqual([]);
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(CASES / 4);
  });
});
