/**
 * The npm lock libraries fencepost measures (`--lock=redlock-v4`, `redis-semaphore`, …) are not dependencies of
 * fencepost: each is installed on first use into the user's per-machine cache, pinned by a lockfile of ours
 * (`locks/<row>/npm/package.json` + `package-lock.json`: the library, the Redis client its README uses, and
 * every transitive version, exact), as the Go and Java rows build their glue once per machine (locks/etcd-go/etcd-mutex, locks/curator/curator-mutex).
 * Why not dependencies: a user of fencepost would then install nine lock libraries, two versions of `redlock` and
 * three Redis clients beside their own, and `redlock-universal`'s `engines: node >=22` would warn every Node 20 user.
 * Why one folder per package rather than one tree with npm aliases: two versions of one package (redlock 4.2.0
 * here, 5.0.0-beta.2 in fencepost's own tree; node-redis 4 for redis-lock, 6 for simple-redis-mutex) never share a
 * node_modules, so each library resolves exactly the versions its row pins, under its own name, as a user's
 * `require('redlock')` would.
 *
 * The harness installs (`installNpmLock`, before any client starts, with a progress line); a client process only
 * loads (`npmLockRequire`): it computes the same folder from the same environment and lockfile.
 */
import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HarnessError } from '../common/errors.ts';
import { notOurs } from '../common/ownership.ts';
import { NPM_BUILTINS, type NpmLockPackage } from './registry.ts';

/** The pinned installs (locks/<row>/npm/), by the folder that holds them: each npm row's in registry.ts. */
export const NPM_LOCK_PACKAGES = [...new Set(Object.values(NPM_BUILTINS))] as readonly NpmLockPackage[];
export type { NpmLockPackage };

/** One `npm ci` of a handful of packages took 4–10 s here; a slow mirror gets minutes before we give up. */
const INSTALL_TIMEOUT_MS = 300_000;

/** Where locks/<pkg>/npm/ is in this checkout (or in the installed fencepost package: `files` ships locks/). */
export function npmLockSource(pkg: NpmLockPackage): string {
  return fileURLToPath(new URL(`./${pkg}/npm/`, import.meta.url));
}

/**
 * The per-machine cache, as the Go and Java rows' `run` scripts spell it: $FENCEPOST_CACHE_DIR, else
 * $XDG_CACHE_HOME/fencepost, else ~/.cache/fencepost — the user's own (never /tmp: anyone could plant a module there).
 */
export function fencepostCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FENCEPOST_CACHE_DIR) return env.FENCEPOST_CACHE_DIR;
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'fencepost');
}

/** What the lockfile pins, read from it: `name@version` of each direct dependency (for messages). */
export function pinnedPackages(pkg: NpmLockPackage): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(npmLockSource(pkg), 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return Object.entries(manifest.dependencies).map(([name, version]) => `${name}@${version}`);
}

/**
 * The install's folder: named for the package and a hash of its lockfile, so a changed pin installs afresh beside
 * the old one (which `rm -rf` of the cache removes) and an unchanged one is never reinstalled.
 */
export function npmLockDir(pkg: NpmLockPackage, env: NodeJS.ProcessEnv = process.env): string {
  const src = npmLockSource(pkg);
  const hash = crypto.createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(src, f)));
  return path.join(fencepostCacheDir(env), 'npm', `${pkg}-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * An interrupted install's temporary tree (`.install-<pkg>-*`, Ctrl-C or kill -9 mid `npm ci`) is removed by the
 * next install once it is older than this: far past INSTALL_TIMEOUT_MS, so no install still running owns it.
 */
export const STALE_INSTALL_MS = 3_600_000;

/**
 * Why the cache may not be used, or null. What is in it runs as us (every client `require`s from it), so the rule
 * is the results folder's (store/results-store.ts, ssh's StrictModes): the cache folder and everything of it that
 * exists down to the package's node_modules is ours and writable by nobody else, and every folder above the cache
 * is ours or root's and not writable by others unless sticky (/tmp). Otherwise another user could plant a
 * `node_modules` under the predictable folder name (audit R13) or swap one in under us.
 */
export function npmCacheProblem(pkg: NpmLockPackage, env: NodeJS.ProcessEnv = process.env): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null; // no uids (Windows): nothing to compare
  const cache = path.resolve(fencepostCacheDir(env));
  const dir = npmLockDir(pkg, env);
  const writable = (at: string, st: fs.Stats) =>
    `${at} is writable by ${st.mode & 0o002 ? 'every user' : 'its group'} (mode ${(st.mode & 0o777).toString(8)})`;
  for (const at of [cache, path.dirname(dir), dir, path.join(dir, 'node_modules')]) {
    const st = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!st) break;
    if (st.isSymbolicLink() && at !== cache) return `${at} is a symbolic link`;
    const real = at === cache ? fs.statSync(at) : st;
    if (!real.isDirectory()) return `${at} is not a folder`;
    if (real.uid !== uid) return `${at} belongs to uid ${real.uid}, not to us (uid ${uid})`;
    if (real.mode & 0o022) return writable(at, real);
  }
  // The folders above where the cache really is: a ~/.cache/fencepost link into a shared folder is judged there.
  const real = fs.existsSync(cache) ? fs.realpathSync(cache) : cache;
  for (let at = path.dirname(real); ; at = path.dirname(at)) {
    const st = fs.statSync(at, { throwIfNoEntry: false });
    if (st && st.uid !== uid && st.uid !== 0) return `${at}, a folder above the cache, belongs to uid ${st.uid}`;
    if (st && st.mode & 0o022 && !(st.mode & 0o1000)) return `${at}, a folder above the cache: ${writable(at, st)}`;
    if (path.dirname(at) === at) return null;
  }
}

/**
 * Removes `.install-*` trees under `root` (the cache's npm/ folder) that are ours and older than STALE_INSTALL_MS:
 * what an install that was interrupted before its own cleanup left (audit R19). Nothing ever reads them.
 */
export function removeStaleInstalls(root: string, now = Date.now()): void {
  let names: string[];
  try {
    names = fs.readdirSync(root).filter((n) => n.startsWith('.install-'));
  } catch {
    return; // no cache yet
  }
  for (const n of names) {
    const at = path.join(root, n);
    const st = fs.lstatSync(at, { throwIfNoEntry: false });
    if (st && !notOurs(at, 'dir') && now - st.mtimeMs > STALE_INSTALL_MS)
      fs.rmSync(at, { recursive: true, force: true });
  }
}

/** Whether the pinned install is in the cache: the folder appears only once `npm ci` finished (renamed in whole). */
export function npmLockInstalled(pkg: NpmLockPackage, env: NodeJS.ProcessEnv = process.env): boolean {
  return fs.existsSync(path.join(npmLockDir(pkg, env), 'node_modules'));
}

/**
 * Install `pkg` into the cache unless it is there. `npm ci` (the lockfile, exactly; `--ignore-scripts`: no
 * package's install script runs) into a private temporary folder inside the cache, then renamed into place, so two
 * runs installing at once each end with a whole tree and a crash half-way leaves no half tree under the real name.
 * The registry is the user's npm configuration (`npm config get registry`, `npm_config_registry`). A failure is a
 * missing dependency (exit 254) naming the packages, the registry and npm's own last words; nothing has started.
 */
export async function installNpmLock(
  pkg: NpmLockPackage,
  lock: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const dir = npmLockDir(pkg, env);
  const problem = npmCacheProblem(pkg, env);
  if (problem)
    throw new HarnessError(
      'bad-arguments',
      `--lock=${lock}: the npm lock cache is not safe to load code from: ${problem}`,
      {
        hint: `what is in the cache runs as you: make it yours and private (chown -R $USER and chmod go-w the folder), or set FENCEPOST_CACHE_DIR to a folder of your own (docs/shared-machines.md). Nothing was started.`,
      },
    );
  if (npmLockInstalled(pkg, env)) return;
  const root = path.dirname(dir);
  fs.mkdirSync(fencepostCacheDir(env), { recursive: true, mode: 0o700 });
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  removeStaleInstalls(root);
  const tmp = fs.mkdtempSync(path.join(root, `.install-${pkg}-`));
  // Ctrl-C mid install: the shutdown ends the process without reaching our `finally`; 'exit' still runs.
  const onExit = () => fs.rmSync(tmp, { recursive: true, force: true });
  process.once('exit', onExit);
  const pins = pinnedPackages(pkg).join(', ');
  log(`fencepost: --lock=${lock}: installing ${pins} into ${dir} (once per machine) …`);
  const t0 = performance.now();
  try {
    for (const f of ['package.json', 'package-lock.json'])
      fs.copyFileSync(path.join(npmLockSource(pkg), f), path.join(tmp, f));
    await npmCi(tmp, env).catch((err: Error & { stderr?: string }) => {
      throw installFailed(lock, pins, env, err);
    });
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // Another run installed the same lockfile meanwhile: its tree is as good as ours.
      if (!npmLockInstalled(pkg, env)) throw err;
    }
  } finally {
    process.off('exit', onExit);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  log(
    `fencepost: --lock=${lock}: installed in ${((performance.now() - t0) / 1000).toFixed(1)} s (cached for the next runs)`,
  );
}

/** The pinned install `--lock=<lock>` needs, when it is an npm row (its row's `npm`), else null. */
export function npmLockOf(lock: string): NpmLockPackage | null {
  return Object.hasOwn(NPM_BUILTINS, lock) ? NPM_BUILTINS[lock as keyof typeof NPM_BUILTINS] : null;
}

/** Before a run (or lock-check) of an npm row starts anything: its library in the cache. A no-op for other locks. */
export async function installNpmLockFor(lock: string, log: (line: string) => void): Promise<void> {
  const pkg = npmLockOf(lock);
  if (pkg) await installNpmLock(pkg, lock, log);
}

function npmCi(cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  // npm's default retry back-off (10–60 s, twice) kept an unreachable registry's answer for 70 s here; 1–5 s: 7 s.
  const args = ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=error'];
  args.push('--fetch-retry-mintimeout=1000', '--fetch-retry-maxtimeout=5000');
  return new Promise((resolve, reject) =>
    execFile('npm', args, { cwd, env, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 4 << 20 }, (err, _out, stderr) => {
      if (!err) return resolve();
      reject(Object.assign(err, { stderr }));
    }),
  );
}

/** The registry npm used, for the message: npm's own answer (asked only after a failure). */
function registryOf(env: NodeJS.ProcessEnv): string {
  try {
    return execFileSync('npm', ['config', 'get', 'registry'], { env, timeout: 10_000, encoding: 'utf8' }).trim();
  } catch {
    return 'the registry of your npm configuration';
  }
}

/** npm's own words for why it failed: its "request to … failed" line when the registry did not answer, else its code. */
export function npmFailureWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter((l) => l && !/^(A complete log|Log files|If you are behind a proxy)/.test(l));
  const fetch = lines.find((l) => /request to .* failed/.test(l));
  if (fetch) return fetch.replace(/^FetchError:\s*/, '');
  const code = lines.find((l) => /^code E/.test(l));
  return [code, ...lines.filter((l) => l !== code).slice(-2)].filter(Boolean).join(' | ');
}

function installFailed(lock: string, pins: string, env: NodeJS.ProcessEnv, err: Error & { stderr?: string }) {
  const words = npmFailureWords(err.stderr ?? '');
  return new HarnessError(
    'missing-dependency',
    `--lock=${lock} needs ${pins}, which are not in the cache yet, and installing them from ${registryOf(env)} failed: ${words || err.message.split('\n')[0]}`,
    {
      hint: 'give this machine access to the npm registry (or point npm_config_registry at a mirror) and run again: the first run installs it, the next ones find it in the cache. Nothing was started.',
    },
  );
}

/**
 * `require` as seen from the cached install (a client process, after the harness installed it): the library and
 * the Redis client its row pins, never fencepost's own copies. Throws, naming the command, when it is not there
 * (a client started without the harness's install step).
 */
export function npmLockRequire(pkg: NpmLockPackage, env: NodeJS.ProcessEnv = process.env): NodeJS.Require {
  const dir = npmLockDir(pkg, env);
  const problem = npmCacheProblem(pkg, env);
  if (problem) throw new Error(`the npm lock cache is not safe to load code from: ${problem}`);
  if (!npmLockInstalled(pkg, env))
    throw new Error(
      `${pinnedPackages(pkg).join(', ')} not installed in ${dir}: the harness installs it before the clients start (run fencepost with --lock=<its row>)`,
    );
  return createRequire(path.join(dir, 'package.json'));
}

/**
 * LockStrategy.libraryCrash for a row whose library is in the cache: an error that reached the top level is the
 * library's when its stack runs through the cached install (its own error classes — redis-semaphore's
 * LostLockError, thrown from its refresh timer — and its drivers' — a pg or node-redis error it left unhandled);
 * named by its class. Anything else (the harness's own code, Node's) is not claimed.
 */
export function crashInCache(pkg: NpmLockPackage): (err: unknown) => string | undefined {
  return (err) => {
    if (!(err instanceof Error) || !err.stack?.includes(npmLockDir(pkg))) return undefined;
    const cls = err.constructor?.name;
    return cls && cls !== 'Error' ? cls : err.name || 'Error';
  };
}
