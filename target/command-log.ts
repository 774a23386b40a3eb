import fs from 'node:fs';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import type { PlannedCommand } from './adapter.ts';

/** Who ran a command: the harness, the injection guard (the harness gone, or an injection past its bound), `cleanup`. */
export type CommandRunner = 'harness' | 'guard' | 'cleanup';

/** One executed command as the log keeps it: the command, when it started (epoch ms), how it ended. */
export interface LoggedCommand extends PlannedCommand {
  readonly at: number;
  readonly ok: boolean;
  readonly error?: string;
  readonly by: CommandRunner;
  /** Pairs it with its `started` line (absent in logs of older runs). */
  readonly id?: string;
}

/** The line written before a command runs: a harness killed while it runs leaves this line, and no outcome. */
export interface StartedCommand extends PlannedCommand {
  readonly at: number;
  readonly started: true;
  readonly by: CommandRunner;
  readonly id: string;
}

/**
 * Every command fencepost executes against a target, appended as it runs (one JSON line each, flushed at once): the
 * record `--dry-run` is compared with, and what a user reads to know exactly what was done to their servers.
 * A null log (dry run, unit tests) keeps nothing.
 */
export class CommandLog {
  /** Entries from before the run had a folder (a preflight's commands), written out by `attach`. */
  private pending: (LoggedCommand | StartedCommand)[] = [];
  private seq = 0;

  constructor(
    private file: string | null,
    private readonly by: CommandRunner = 'harness',
    /** Keep entries in memory until `attach` names the file (a run logs its preflight before its folder exists). */
    private readonly buffer = false,
  ) {}

  /** From now on, entries go to `file`; those kept so far are written first. */
  attach(file: string): void {
    this.file = file;
    for (const e of this.pending) this.append(e);
    this.pending = [];
  }

  get path(): string | null {
    return this.file;
  }

  /**
   * Runs `fn`, logging `cmd` before it starts and again with its outcome; rethrows what `fn` threw. The line before
   * is what names a command that was running when the harness died (audit R4: kill -9 mid-command left no trace).
   */
  async run<T>(cmd: PlannedCommand, fn: () => Promise<T>): Promise<T> {
    const at = Date.now();
    const id = `${process.pid}-${++this.seq}`;
    this.append({ ...cmd, at, started: true, by: this.by, id });
    try {
      const out = await fn();
      this.append({ ...cmd, at, ok: true, by: this.by, id });
      return out;
    } catch (err) {
      this.append({ ...cmd, at, ok: false, error: (err as Error).message.slice(0, 500), by: this.by, id });
      throw err;
    }
  }

  private append(entry: LoggedCommand | StartedCommand): void {
    if (this.file) fs.appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: RUN_FILE_MODE });
    else if (this.buffer) this.pending.push(entry);
  }

  /** The commands that ended, with how (a file missing or a torn last line read as what is there). */
  static read(file: string): LoggedCommand[] {
    return lines(file).filter((e): e is LoggedCommand => typeof (e as LoggedCommand).ok === 'boolean');
  }

  /** The commands that started and never ended: running when their runner died, or running still. */
  static unfinished(file: string): StartedCommand[] {
    const all = lines(file);
    const ended = new Set(all.map((e) => ('started' in e ? null : e.id)).filter(Boolean));
    return all.filter((e): e is StartedCommand => 'started' in e && !ended.has(e.id));
  }
}

function lines(file: string): (LoggedCommand | StartedCommand)[] {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: (LoggedCommand | StartedCommand)[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as LoggedCommand | StartedCommand);
    } catch {
      // a line torn by a crash mid-write: the ones before it stand
    }
  }
  return out;
}
