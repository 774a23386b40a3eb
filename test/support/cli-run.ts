import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type Options, type ResultPromise } from 'execa';
import { afterAll } from 'vitest';
import { eventually } from './eventually.ts';
import { processesUnder, type OurProcess } from '../integration/processes.ts';

/** The repo's CLI entry, as a user runs it from a checkout (`node --import tsx cli.ts …`). */
export const CLI = path.resolve('cli.ts');

/** How a run of the CLI ended, with what it printed. */
export interface CliExit {
  /** The exit code, or null when a signal ended it (then `signal` names it). */
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Appended as `--results=<dir>`; the folder `leftovers()` and the safety net look under. */
  results?: string;
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string | undefined>;
  /** Its own process group (as a shell starts a job), so a signal to `-pid` reaches every process of it. */
  detached?: boolean;
  /**
   * `node` runs cli.ts directly (the default); `npm` goes through `npm run jepsen --` as the README says; `sh` under
   * a shell that stays its parent (`sh -c '… ; true'`), as npm's script shell does.
   */
  via?: 'node' | 'npm' | 'sh';
  /** `ignore`: its output goes nowhere (a run with every library's debug log on); `line()` then has nothing to read. */
  output?: 'pipe' | 'ignore';
  /** Signal it (`killSignal`, SIGTERM unless said) after this long, so a command that hangs fails the test. */
  timeoutMs?: number;
  killSignal?: NodeJS.Signals;
}

/** How long after the CLI's exit its output may still arrive (see CliRun.exit). A deadline, not a wait for a state. */
const OUTPUT_GRACE_MS = 2_000;

/** Every run this file started, so the safety net can end those a failed assertion left running. */
const started = new Set<CliRun>();

// The safety net: a test that fails mid-run must not leave the CLI, or the servers it started, for the rest of the
// suite. Registered on import, so a file that starts the CLI cannot forget it (vitest collects each file with its
// own module graph, so each file gets its own).
afterAll(() => {
  for (const run of started) run.killAll();
});

/**
 * The fencepost CLI as a process: what it printed so far, a wait for a line (so a test signals it at a state, not
 * after a sleep), how it ended, its run dir, and what it left running.
 */
export class CliRun {
  readonly child: ResultPromise;
  readonly exit: Promise<CliExit>;
  private out = '';
  private err = '';
  private ended = false;

  constructor(
    args: string[],
    private readonly opts: CliOptions = {},
  ) {
    const argv = [...args, ...(opts.results ? [`--results=${opts.results}`] : [])];
    const node = [process.execPath, '--import', 'tsx', CLI, ...argv];
    const [file, fileArgs] =
      opts.via === 'npm'
        ? ['npm', ['run', 'jepsen', '--', ...argv]]
        : opts.via === 'sh'
          ? ['sh', ['-c', `${node.map(shellQuoted).join(' ')}; true`]]
          : [node[0], node.slice(1)];
    const options: Options = {
      cwd: opts.cwd,
      env: opts.env,
      detached: opts.detached,
      timeout: opts.timeoutMs,
      killSignal: opts.killSignal,
      reject: false,
      stdin: 'ignore',
      stdout: opts.output ?? 'pipe',
      stderr: opts.output ?? 'pipe',
      // Collected here as it comes (for line()); execa keeping a second copy would only cap it at its maxBuffer.
      buffer: false,
    };
    this.child = execa(file, fileArgs, options);
    this.child.stdout?.on('data', (d: Buffer) => (this.out += d));
    this.child.stderr?.on('data', (d: Buffer) => (this.err += d));
    started.add(this);
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      this.child.once('exit', (code, signal) => resolve([code, signal])),
    );
    this.exit = exited.then(async ([code, signal]) => {
      this.ended = true;
      // Its output is complete once the pipes close; but a process it left behind (a server after a kill -9) may hold
      // them open for good, so the exit does not wait on them longer than this.
      const grace = new AbortController();
      await Promise.race([
        this.child.catch(() => {}),
        sleep(OUTPUT_GRACE_MS, undefined, { signal: grace.signal }).catch(() => {}),
      ]);
      grace.abort(); // no timer left behind when the pipes closed first
      return { code, signal, stdout: this.out, stderr: this.err };
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  get running(): boolean {
    return !this.ended;
  }

  /**
   * The first line of stdout or stderr that matches `pattern`, once it appears; throws if the run ends first or
   * `ms` pass, naming the pattern and the output's last lines.
   */
  async line(pattern: RegExp, ms = 120_000): Promise<RegExpMatchArray> {
    const what = `a line matching ${pattern} from the CLI`;
    const found = () =>
      `${this.out}\n${this.err}`
        .split('\n')
        .find((l) => pattern.test(l))
        ?.match(pattern);
    // null: it exited without the line, so there is nothing more to wait for.
    const m = await eventually(what, () => found() ?? (this.ended ? null : undefined), ms);
    if (!m) throw new Error(`${what}: it exited first:\n${this.tail()}`);
    return m;
  }

  /** Signal the CLI (its whole group when `detached`, as a terminal's Ctrl-C reaches the foreground group). */
  signal(sig: NodeJS.Signals): void {
    process.kill(this.opts.detached ? -this.pid : this.pid, sig);
  }

  /** The run folder it printed (`run dir: <path>`); throws with its output when it printed none. */
  runDir(): string {
    const m = this.out.match(/run dir: (.*)/);
    if (!m) throw new Error(`the CLI printed no "run dir:" line:\n${this.tail()}`);
    return m[1].trim();
  }

  /** Every live process of the runs under `results` (servers, clients, the harness itself). */
  leftovers(): OurProcess[] {
    if (!this.opts.results) throw new Error('leftovers() needs the run started with a results folder');
    return processesUnder(this.opts.results);
  }

  /**
   * What is still running under the results folder once the processes the teardown killed are reaped (the kernel
   * takes a moment), waiting at most `ms`: [] when nothing is left, else what is, for the assertion to name.
   */
  async leftoversOnceReaped(ms = 5_000): Promise<OurProcess[]> {
    await eventually('nothing of the run left running', () => this.leftovers().length === 0, ms).catch(() => {});
    return this.leftovers();
  }

  /** SIGKILL the CLI (its group when detached) and everything of ours under its results folder. */
  killAll(): void {
    // A test that passed may have removed its results folder already: then nothing under it is left to find.
    const results = this.opts.results;
    const pids = results && fs.existsSync(results) ? processesUnder(results).map((p) => p.pid) : [];
    if (!this.ended) pids.unshift(this.opts.detached ? -this.pid : this.pid);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }

  private tail(): string {
    return `${this.out}\n${this.err}`.trim().split('\n').slice(-20).join('\n');
  }
}

function shellQuoted(arg: string): string {
  return `'${arg.replaceAll("'", "'\\''")}'`;
}

/** Start the CLI with `args`; see CliRun. */
export function startCli(args: string[], opts: CliOptions = {}): CliRun {
  return new CliRun(args, opts);
}

/** Run the CLI with `args` to its end. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliExit> {
  return startCli(args, opts).exit;
}
