import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkCommand } from '../harness/check-command.ts';
import type { RunResults } from './run-results.ts';
import { finalRead, history, twoWritersLoseOne } from '../test/support/test-history.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'fencepost-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let out: string[];
let err: string[];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
});
afterEach(() => vi.restoreAllMocks());

const lostUpdate = twoWritersLoseOne();
const jsonl = (ops: object[]) => ops.map((o) => JSON.stringify(o)).join('\n') + '\n';

/** A fresh, empty directory. */
function mkdirp(d: string): string {
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  return d;
}

describe('check <run-dir>', () => {
  it('re-checks a stored run, rewrites results.json and exits 1 for an invalid run', async () => {
    const d = path.join(dir, 'run-invalid');
    mkdirp(d);
    writeFileSync(path.join(d, 'history.jsonl'), jsonl(lostUpdate));
    writeFileSync(path.join(d, 'test.json'), JSON.stringify({ config: { fencing: false } }));
    writeFileSync(path.join(d, 'results.json'), '{"stale": true}');
    expect(await checkCommand([d])).toBe(1);
    const results = JSON.parse(readFileSync(path.join(d, 'results.json'), 'utf8')) as RunResults;
    expect(results.valid).toBe(false);
    expect(results.lostUpdates).toBe(1);
    expect(results.checkers.linearizable.valid).toBe(false);
    expect(out.join('\n')).toContain('INVALID');
    expect(out.join('\n')).toContain('lost updates: 1');
  });

  it('exits 0 for a valid run, and reads fencing from test.json', async () => {
    const d = path.join(dir, 'run-valid');
    mkdirp(d);
    const h = history(finalRead(0, 100, 100, []));
    writeFileSync(path.join(d, 'history.jsonl'), jsonl(h));
    writeFileSync(path.join(d, 'test.json'), JSON.stringify({ config: { fencing: true, minWrites: 0 } }));
    expect(await checkCommand([d])).toBe(0);
    expect(out.join('\n')).toContain('(fenced)');
  });

  it('exits 2 for a run that committed nothing, with the reason on the verdict line', async () => {
    const d = path.join(dir, 'run-no-progress');
    mkdirp(d);
    writeFileSync(path.join(d, 'history.jsonl'), jsonl(history(finalRead(0, 100, 100, []))));
    writeFileSync(path.join(d, 'test.json'), JSON.stringify({ config: { fencing: false, concurrency: 2 } }));
    expect(await checkCommand([d])).toBe(2);
    expect(out[0].split('\n')[0]).toMatch(/^UNKNOWN: .*: no progress: 0 writes committed; no client op completed$/);
    const results = JSON.parse(readFileSync(path.join(d, 'results.json'), 'utf8'));
    expect(results).toMatchObject({
      valid: 'unknown',
      unknownReasons: ['no progress: 0 writes committed; no client op completed'],
    });
  });

  it('without a readable test.json a clean run is unknown, with the reason; a lost update stays INVALID', async () => {
    // Without test.json the check knows neither the run's faults (which had to hit), nor its clients (a VALID
    // needs two writers), nor its fencing: it cannot earn a VALID.
    const h = history(finalRead(0, 100, 100, []));
    for (const [name, testJson] of [
      ['missing', undefined],
      ['corrupt', '{"config": {"fenc'],
      ['not-a-record', '[1, 2]'],
      ['no-config', '{"faults": []}'],
    ] as const) {
      const d = mkdirp(path.join(dir, `run-test-json-${name}`));
      writeFileSync(path.join(d, 'history.jsonl'), jsonl(h));
      if (testJson !== undefined) writeFileSync(path.join(d, 'test.json'), testJson);
      err = [];
      out = [];
      expect(await checkCommand([d]), name).toBe(2);
      expect(out[0].split('\n')[0], name).toMatch(/^UNKNOWN: .*: test\.json .*cannot tell which faults had to hit/);
      const results = JSON.parse(readFileSync(path.join(d, 'results.json'), 'utf8')) as RunResults;
      expect(results.valid, name).toBe('unknown');
      expect(results.unknownReasons[0], name).toMatch(/^test\.json /);
    }
    const d = mkdirp(path.join(dir, 'run-no-test-json-lost'));
    writeFileSync(path.join(d, 'history.jsonl'), jsonl(lostUpdate));
    expect(await checkCommand([d])).toBe(1);
  });

  it('an empty history.jsonl is nothing to check: 254, saying so', async () => {
    const d = mkdirp(path.join(dir, 'run-empty-history'));
    writeFileSync(path.join(d, 'history.jsonl'), '');
    writeFileSync(path.join(d, 'test.json'), JSON.stringify({ config: { fencing: false, concurrency: 2 } }));
    expect(await checkCommand([d])).toBe(254);
    expect(err.join('\n')).toMatch(/history\.jsonl holds no operations/);
  });

  it('refuses a directory without history.jsonl (254)', async () => {
    expect(await checkCommand([mkdirp(path.join(dir, 'empty'))])).toBe(254);
    expect(err.join('\n')).toContain('history.jsonl does not exist');
  });
});

describe('check --model=<model> <file>', () => {
  it('checks our JSONL against the account model', async () => {
    const file = path.join(dir, 'lost.jsonl');
    writeFileSync(file, jsonl(lostUpdate));
    expect(await checkCommand(['--model=account', file])).toBe(1);
    expect(out.join('\n')).toMatch(/INVALID: .* is not linearizable as a account/);
    expect(out.join('\n')).toContain('account 0: read 100, wrote 120 (+20)');
  });

  it('checks a Jepsen EDN history written one map per line', async () => {
    const file = path.join(dir, 'history.edn');
    writeFileSync(
      file,
      '{:process 0 :type :invoke :f :write :value 1}\n{:process 0 :type :ok :f :write :value 1}\n{:process :nemesis :type :info :f :kill}\n{:process 1 :type :invoke :f :read :value nil}\n{:process 1 :type :ok :f :read :value 1}\n',
    );
    expect(await checkCommand(['--model=register', file])).toBe(0);
  });

  it('--initial sets the register’s starting value', async () => {
    const file = path.join(dir, 'cas.edn');
    writeFileSync(
      file,
      '[{:process 0 :type :invoke :f :cas :value [0 1]} {:process 0 :type :ok :f :cas :value [0 1]}]',
    );
    expect(await checkCommand(['--model=cas-register', file])).toBe(1);
    expect(await checkCommand(['--model=cas-register', '--initial=0', file])).toBe(0);
  });

  it('exits 2 (unknown) when the deadline passes first', async () => {
    // Twelve overlapping writes and a read of a value none wrote: thousands of configurations to rule out.
    const ops = [
      ...Array.from({ length: 12 }, (_, p) => `{:process ${p} :type :invoke :f :write :value ${p + 1}}`),
      '{:process 20 :type :invoke :f :read :value nil}',
      '{:process 20 :type :ok :f :read :value 99}',
      ...Array.from({ length: 12 }, (_, p) => `{:process ${p} :type :ok :f :write :value ${p + 1}}`),
    ];
    const file = path.join(dir, 'hard.edn');
    writeFileSync(file, `[${ops.join('\n')}]`);
    expect(await checkCommand(['--model=cas-register', '--initial=0', '--deadline=0.001', file])).toBe(2);
    expect(out.join('\n')).toContain('UNKNOWN');
  });

  it.each([
    [[], /missing the run directory or history file/],
    [['--model=bogus', 'x.edn'], /unknown model "bogus"; valid models: register .*cas-register .*mutex .*account/],
    [['--model=register'], /missing the run directory or history file/],
    [['--model=register', '--deadline=soon', 'x.edn'], /--deadline must be a positive number of milliseconds/],
    [['--model=mutex', '--initial=0', 'x.edn'], /--initial only applies to/],
    [['--frobnicate', 'x'], /unknown option --frobnicate/],
    [['a', 'b'], /expected one run directory, got 2: a b \(to check many history files, name a model/],
    [['--model=register', '/nonexistent/history.edn'], /is not a file/],
  ])('bad arguments %j exit 254 with a message', async (args, message) => {
    expect(await checkCommand(args)).toBe(254);
    expect(err.join('\n')).toMatch(message);
  });

  it.each([
    ['empty.jsonl', ''],
    ['empty.edn', ''],
    ['blank.edn', '\n\n'],
    ['one-line.jsonl', 'hello, this is not JSON\n'],
    ['one-line.txt', 'hello, this is not JSON\n'],
    ['one-line.edn', 'hello'],
  ])('never VALID about nothing: %s is a bad argument (254), saying it holds no operations', async (name, text) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    expect(await checkCommand(['--model=register', file])).toBe(254);
    expect(out.join('\n')).not.toContain('VALID');
    expect(err.join('\n')).toMatch(/no operations|not a history|cannot read/);
  });

  it('a history none of whose ops the model knows is a bad argument (254), not VALID', async () => {
    const file = path.join(dir, 'unknown-ops.edn');
    writeFileSync(
      file,
      '[{:process 0 :type :invoke :f :frobnicate :value 1} {:process 0 :type :ok :f :frobnicate :value 1}]',
    );
    expect(await checkCommand(['--model=register', file])).toBe(254);
    expect(err.join('\n')).toMatch(/none of its 2 ops is one the register model knows/);
  });

  it('a file that is not a history is a bad argument (254), with the reason', async () => {
    const file = path.join(dir, 'broken.edn');
    writeFileSync(file, '[{:process 0 :type :started :f :read}]');
    expect(await checkCommand(['--model=register', file])).toBe(254);
    expect(err.join('\n')).toContain(':type must be');
  });
});

describe('check --model=<model> <file|dir>… (many histories in one process)', () => {
  const validEdn =
    '[{:process 0 :type :invoke :f :write :value 1} {:process 0 :type :ok :f :write :value 1} {:process 1 :type :invoke :f :read :value nil} {:process 1 :type :ok :f :read :value 1}]';
  const invalidEdn =
    '[{:process 0 :type :invoke :f :write :value 1} {:process 0 :type :ok :f :write :value 1} {:process 1 :type :invoke :f :read :value nil} {:process 1 :type :ok :f :read :value 7}]';
  // 20 overlapping writes and a read of a value none wrote: ~2^20 configurations, far more than 300 ms of work.
  const hardEdn = `[${[
    ...Array.from({ length: 20 }, (_, p) => `{:process ${p} :type :invoke :f :write :value ${p + 1}}`),
    '{:process 30 :type :invoke :f :read :value nil}',
    '{:process 30 :type :ok :f :read :value 99}',
    ...Array.from({ length: 20 }, (_, p) => `{:process ${p} :type :ok :f :write :value ${p + 1}}`),
  ].join(' ')}]`;
  const bulk = mkdirp(path.join(dir, 'bulk'));
  mkdirSync(path.join(bulk, 'nested'));
  writeFileSync(path.join(bulk, 'a-valid.edn'), validEdn);
  writeFileSync(path.join(bulk, 'nested', 'b-valid.edn'), validEdn);
  writeFileSync(path.join(bulk, 'notes.txt'), 'not a history');
  const invalidFile = path.join(dir, 'bulk-invalid.edn');
  writeFileSync(invalidFile, invalidEdn);
  const hardFile = path.join(dir, 'bulk-hard.edn');
  writeFileSync(hardFile, hardEdn);

  it('a directory means every .edn/.jsonl under it: one line each and a total; all valid → exit 0', async () => {
    expect(await checkCommand(['--model=register', bulk])).toBe(0);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^VALID +.*a-valid\.edn +2 ops, \d+ ms$/);
    expect(out[1]).toMatch(/^VALID +.*nested\/b-valid\.edn/);
    expect(out[2]).toMatch(/^total: 2 histories as register: 2 valid, 0 invalid, 0 unknown in \d+ ms → VALID$/);
  });

  it('merges verdicts false > unknown > true into the exit code (1 > 2 > 0)', async () => {
    expect(await checkCommand(['--model=register', '--initial=0', '--deadline=300', bulk, hardFile])).toBe(2);
    expect(out.at(-1)).toMatch(/1 unknown .* → UNKNOWN$/);
    expect(out.find((l) => l.includes('bulk-hard'))).toMatch(/^UNKNOWN .*deadline reached/);
    out = [];
    expect(await checkCommand(['--model=register', '--initial=0', '--deadline=300', hardFile, invalidFile, bulk])).toBe(
      1,
    );
    expect(out.find((l) => l.includes('bulk-invalid'))).toMatch(/^INVALID .*read 7 at op #2 cannot be linearized/);
    expect(out.at(-1)).toMatch(/^total: 4 histories as register: 2 valid, 1 invalid, 1 unknown in \d+ ms → INVALID$/);
  });

  it('an unreadable file gets an ERROR line, the others are still checked, and the exit is 254', async () => {
    const broken = path.join(dir, 'bulk-broken.edn');
    writeFileSync(broken, '[{:process 0 :type :started :f :read}]');
    expect(await checkCommand(['--model=register', broken, invalidFile])).toBe(254);
    expect(out[0]).toMatch(/^ERROR .*bulk-broken\.edn .*:type must be/);
    expect(out[1]).toMatch(/^INVALID/);
    expect(out.at(-1)).toMatch(/1 unreadable in \d+ ms → bad input$/);
  });

  it('a missing path or a directory with no history is a bad argument (254)', async () => {
    expect(await checkCommand(['--model=register', invalidFile, '/nonexistent/dir'])).toBe(254);
    expect(err.join('\n')).toContain('/nonexistent/dir does not exist');
    expect(await checkCommand(['--model=register', mkdirp(path.join(dir, 'bulk-empty'))])).toBe(254);
    expect(err.join('\n')).toContain('holds no .edn or .jsonl file');
  });
});

describe('check --model=<m> <folder> walks only the folder itself (N20)', () => {
  const registerOk = jsonl([
    { index: 0, time: 0, process: 0, type: 'invoke', f: 'write', value: 1 },
    { index: 1, time: 1, process: 0, type: 'ok', f: 'write', value: 1 },
  ]);

  it('a link loop and a link out of the folder are not followed: the files of the folder are checked', async () => {
    const d = mkdirp(path.join(dir, 'links'));
    writeFileSync(path.join(d, 'h.jsonl'), registerOk);
    symlinkSync('.', path.join(d, 'loop'));
    const outside = mkdirp(path.join(dir, 'outside'));
    writeFileSync(path.join(outside, 'o.jsonl'), 'not a history');
    symlinkSync(outside, path.join(d, 'up'));
    symlinkSync(path.join(dir, 'gone'), path.join(d, 'dangling.jsonl'));
    expect(await checkCommand(['--model=register', d])).toBe(0);
    expect(out.join('\n')).toMatch(/total: 1 histories as register: 1 valid/);
    expect(err.join('\n')).toContain(`${d}: 3 symbolic link(s) not followed`);
  });

  it('a folder it cannot list: 254 naming it, not a crash (255)', async () => {
    const d = mkdirp(path.join(dir, 'walk-unreadable'));
    writeFileSync(path.join(d, 'h.jsonl'), registerOk);
    const closed = mkdirp(path.join(d, 'closed'));
    chmodSync(closed, 0o000);
    // Root lists any folder: as root the check runs with the effective uid of nobody (this file has its own process).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      for (const p of [dir, d]) chmodSync(p, 0o755);
      process.seteuid!(65534);
    }
    let code: number;
    try {
      code = await checkCommand(['--model=register', d]);
    } finally {
      if (asRoot) process.seteuid!(0);
      chmodSync(closed, 0o755);
    }
    expect(code).toBe(254);
    expect(err.join('\n')).toContain(`check: cannot read the folder ${closed}: EACCES`);
  });
});
