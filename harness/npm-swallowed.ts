import fs from 'node:fs';
import path from 'node:path';

/**
 * Options npm took for itself. `npm run jepsen --lock=etcd` — the `--` forgotten — hands `--lock=etcd` to npm, not
 * to fencepost: npm expands it to its own `--lockfile-version`, finds "etcd" invalid and drops it, and the run went
 * on with the default lock for 60 s, its summary saying redlock. An option npm does not know it keeps as config and
 * exports to the script's environment (`--time-limit=10` → `npm_config_time_limit=10`); one it expands into its
 * own leaves no trace there. npm rewrites its process title (`npm run jepsen`, the arguments gone from /proc), so
 * the one record of what was typed is npm's own debug log, `verbose argv "run" "jepsen" "--lock" "etcd"`.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The options npm kept, as the user typed them (`--time-limit=10`, a flag as `--fencing`); empty outside npm. */
export function swallowedByNpm(env: Env, npmArgv: readonly string[] | null, optionNames: readonly string[]): string[] {
  const script = env.npm_lifecycle_event;
  if (!script) return [];
  const found = new Map<string, string>();
  for (const name of optionNames) {
    const value = env[`npm_config_${name.replace(/-/g, '_')}`];
    if (value !== undefined) found.set(name, value === 'true' || value === '' ? `--${name}` : `--${name}=${value}`);
  }
  for (const [name, typed] of npmOptions(npmArgv ?? [], script))
    if (optionNames.includes(name) && !found.has(name)) found.set(name, typed);
  return [...found.values()];
}

/**
 * npm's own options in its argv after `run`, before `--`, by name: `["run", "--loglevel", "silent", "jepsen",
 * "--lock", "etcd"]` → lock: `--lock=etcd`. The debug log writes each `--name=value` as two words; the script's
 * name is the first word that is not an option's value.
 */
export function npmOptions(argv: readonly string[], script: string): Map<string, string> {
  const out = new Map<string, string>();
  const run = argv.findIndex((a) => a === 'run' || a === 'run-script');
  if (run < 0) return out;
  const words = argv.slice(run + 1);
  const end = words.indexOf('--');
  const mine = end < 0 ? words : words.slice(0, end);
  for (let i = 0; i < mine.length; i++) {
    const arg = mine[i];
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const next = mine[i + 1];
    if (eq >= 0) out.set(name, arg);
    else if (next !== undefined && !next.startsWith('-') && next !== script) out.set(name, `--${name}=${mine[++i]}`);
    else out.set(name, `--${name}`);
  }
  return out;
}

/** `2026-12-04T13_58_41_981Z-debug-0.log` → its time in ms, or NaN. */
export function npmLogTime(file: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d)_(\d\d)_(\d\d)_(\d{3})Z-debug-\d+\.log$/.exec(file);
  return m ? Date.parse(`${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`) : NaN;
}

/**
 * The words of a debug log's `verbose argv` line, when its title is `npm run <script> …`. Its cwd, when the line is
 * there already (npm writes the log as it goes), must be where npm was typed.
 */
export function argvOfNpmLog(head: string, script: string, cwd: string): string[] | null {
  const lines = head.split('\n');
  const title = lines.find((l) => / verbose title /.test(l));
  const at = lines.find((l) => / verbose cwd /.test(l));
  const argv = lines.find((l) => / verbose argv /.test(l));
  if (!title || !argv) return null;
  // The title is `npm run <script>` and whatever followed `--`.
  const named = title.slice(title.indexOf(' verbose title ') + 15).split(' ');
  if (named[0] !== 'npm' || !/^run(-script)?$/.test(named[1] ?? '') || named[2] !== script) return null;
  if (at && at.slice(at.indexOf(' verbose cwd ') + 13) !== cwd) return null;
  return [...argv.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
}

/** When a process started, in ms since the epoch, from /proc (10 ms steps); null where there is no /proc. */
function processStartMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the name (field 2), which may hold spaces; USER_HZ is 100 on Linux.
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const uptimeS = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    return Date.now() - (uptimeS - startTicks / 100) * 1000;
  } catch {
    return null;
  }
}

/**
 * What the npm that started this process was given, from its debug log: the first `<cache>/_logs/*-debug-*.log`
 * begun after that npm started (our parent: the script `exec`s the harness), if its title is `npm run <this
 * script>`. Only its first 4 KB are read. null when npm did not start us, or left no log (`logs-max=0`).
 */
export function npmCommandLine(env: Env = process.env, npmStartedMs = processStartMs(process.ppid)): string[] | null {
  const script = env.npm_lifecycle_event;
  if (!script || !env.npm_config_cache || npmStartedMs === null) return null;
  const dir = path.join(env.npm_config_cache, '_logs');
  let files: string[];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return null;
  }
  // npm names its log when it starts, after loading its config: well within seconds of its process starting.
  const ours = files
    .map((f) => ({ f, t: npmLogTime(f) }))
    .filter(({ t }) => t >= npmStartedMs - 100 && t - npmStartedMs <= 10_000)
    .sort((a, b) => a.t - b.t);
  for (const { f } of ours) {
    try {
      const fd = fs.openSync(path.join(dir, f), 'r');
      const buf = Buffer.alloc(4096);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      fs.closeSync(fd);
      const argv = argvOfNpmLog(buf.subarray(0, n).toString('utf8'), script, env.INIT_CWD ?? process.cwd());
      if (argv) return argv;
    } catch {
      // gone or unreadable: the next one
    }
  }
  return null;
}
