import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesUnder } from './processes.ts';

/**
 * fencepost as a user's repository gets it: `npm pack` here, then in a scratch project outside the repository
 * `npm init -y`, `npm install -D <tarball>`, `npx fencepost init`, the command init prints, and the nightly job on
 * init's cells — every result under that project's own folder. Then plugins the way users write them: plain
 * `.mjs`, and CommonJS `.js` resolving `fencepost` to a copy of that install in another folder (another copy of
 * LockNotAcquired, recognised by its brand). The install is done once (beforeAll): ~10 s from npm's cache.
 */
const REPO = path.resolve('.');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-installed-'));
const project = path.join(scratch, 'project');
const second = path.join(scratch, 'second-copy');
let tarball = '';

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(cmd: string, args: string[], cwd: string, timeoutMs: number): Exit {
  try {
    const stdout = execFileSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, stdio: 'pipe' });
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number | null; stdout?: string; stderr?: string };
    return { code: e.status, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `npx fencepost …` in the project, as a user types it. */
function fencepost(args: string[], timeoutMs = 150_000): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', 'fencepost', ...args], { cwd: project, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function install(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  expect(sh('npm', ['init', '-y'], dir, 30_000).code).toBe(0);
  const r = sh('npm', ['install', '-D', '--prefer-offline', '--no-audit', '--no-fund', tarball], dir, 400_000);
  expect(r.code, r.stderr).toBe(0);
}

type HistoryOp = { type: string; f: string; error?: string };
function history(runDir: string): HistoryOp[] {
  return fs
    .readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as HistoryOp);
}
/** The run dir the summary names: relative to the project (where npx ran), so resolved from there. */
const runDirOf = (stdout: string) => path.resolve(project, /run dir: (\S+)/.exec(stdout)?.[1] ?? '');

beforeAll(() => {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: REPO, encoding: 'utf8' }),
  ) as { filename: string; size: number }[];
  tarball = path.join(scratch, packed[0].filename);
  console.log(`fencepost tarball: ${packed[0].size} bytes`);
  install(project);
  // The second copy is the first install copied (another folder, so Node loads every module again: another
  // LockNotAcquired class), not a second `npm install` of the same tarball: that took ~10 s of both cores.
  fs.cpSync(project, second, { recursive: true, verbatimSymlinks: true });
}, 900_000);

afterAll(() => {
  for (const p of processesUnder(scratch)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the installed package, in a scratch project outside the repository', () => {
  it('init writes the starter files and prints a command; that command is INVALID with lost updates, its report under the project', async () => {
    const init = await fencepost(['init']);
    expect(init.code, init.stderr).toBe(0);
    for (const f of ['locks/my-lock.ts', 'fencepost.expectations.json', '.github/workflows/fencepost-nightly.yml'])
      expect(fs.existsSync(path.join(project, f)), f).toBe(true);
    expect(fs.readFileSync(path.join(project, 'locks/my-lock.ts'), 'utf8')).toContain("from 'fencepost'");
    const printed = /^\s+npx fencepost (--lock=\S+ .*)$/m.exec(init.stdout);
    expect(printed, init.stdout).not.toBeNull();
    expect(printed![1]).toBe('--lock=./locks/my-lock.ts --nemesis=restart-empty --time-limit=15');

    const run = await fencepost(printed![1].split(' '));
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    expect(run.stdout).toMatch(/^\s+INVALID {2}--lock=\.\/locks\/my-lock\.ts/m);
    expect(Number(/lost updates: (\d+)/.exec(run.stdout)?.[1])).toBeGreaterThan(0);
    const runDir = runDirOf(run.stdout);
    expect(runDir.startsWith(path.join(project, 'results') + path.sep), runDir).toBe(true);
    expect(fs.existsSync(path.join(runDir, 'report.html'))).toBe(true);
    expect(run.stdout).toContain('replay:  npx fencepost --lock=./locks/my-lock.ts');
    // The libraries under test, found where npm hoisted them: every installed copy said "not installed".
    const { versions } = JSON.parse(fs.readFileSync(path.join(runDir, 'test.json'), 'utf8')) as {
      versions: Record<string, string>;
    };
    for (const lib of ['ioredis', 'pg', 'redlock', 'etcd3', 'node-zookeeper-client'])
      expect(versions[lib], lib).toMatch(/^v?\d+\.\d+\.\d+/);
    // init's other promises: the first run is expected red, results/ is ignored, one Redis is all it boots.
    expect(init.stdout).toContain('Expect INVALID (exit 1)');
    expect(fs.readFileSync(path.join(project, '.gitignore'), 'utf8')).toMatch(/^results\/$/m);
    expect(run.stderr).toMatch(/fencepost: 2 nodes ready/);
  });

  it("nightly on init's cells writes a JUnit and a summary under the project", async () => {
    const r = await fencepost([
      'nightly',
      '--expectations=fencepost.expectations.json',
      '--cells=expectations',
      '--time-limit=10',
      '--results=results/nightly',
    ]);
    const dir = path.join(project, 'results/nightly');
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const junit = fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('tests="2" failures="0" errors="0"');
    const summary = fs.readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('./locks/my-lock.ts');
  });

  // A lock that tries once: busy means LockNotAcquired at once, so the history has many refusals to interpret.
  const tryOnce = (importLine: string, exportLine: string) => `${importLine}
import { Redis } from 'ioredis';
${exportLine}({
  name: 'try-once',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'none',
  async connect(ctx) {
    const redis = new Redis({ ...ctx.redis[0], maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    return {
      async acquire(key) {
        const owner = String(Math.random());
        if ((await redis.set('try:' + key, owner, 'PX', ctx.ttlMs, 'NX')) === 'OK') return { key, attempts: 1, handle: owner };
        throw new LockNotAcquired(key + ' is busy', 1);
      },
      async release(lease) {
        const script = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
        return (await redis.eval(script, 1, 'try:' + lease.key, String(lease.handle))) === 1;
      },
      async close() { redis.disconnect(); },
    };
  },
});
`;

  it.each([
    {
      name: 'a plain .mjs plugin of the project',
      file: 'plain-lock.mjs',
      text: tryOnce("import { LockNotAcquired, defineLock } from 'fencepost';", 'export default defineLock'),
    },
    {
      name: 'a CommonJS .js plugin built against a second copy of the package (its own LockNotAcquired class)',
      file: path.join('..', 'second-copy', 'cjs-lock.js'),
      text: tryOnce(
        "const { LockNotAcquired, defineLock } = require('fencepost');",
        'module.exports = defineLock',
      ).replace("import { Redis } from 'ioredis';", "const { Redis } = require('ioredis');"),
    },
  ])('$name loads and is judged: VALID, its refusals recorded as fail, none as unknown', async ({ file, text }) => {
    fs.writeFileSync(path.join(project, file), text);
    if (file.includes('second-copy'))
      expect(fs.realpathSync(path.join(second, 'node_modules/fencepost'))).not.toBe(
        fs.realpathSync(path.join(project, 'node_modules/fencepost')),
      );
    const r = await fencepost([`--lock=./${file}`, '--nemesis=none', '--time-limit=6']);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toMatch(/^\s+VALID /m);
    const ops = history(runDirOf(r.stdout)).filter((o) => o.f === 'acquire');
    expect(ops.filter((o) => o.type === 'fail' && o.error === 'not-acquired').length).toBeGreaterThan(10);
    expect(ops.filter((o) => o.type === 'info')).toEqual([]);
  });
});
