import fs from 'node:fs';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import type { PlannedCommand } from './adapter.ts';

/** One executed command as the log keeps it: the command, when (epoch ms), how it ended. */
export interface LoggedCommand extends PlannedCommand {
  readonly at: number;
  readonly ok: boolean;
  readonly error?: string;
  /** Who ran it: the harness, or the injection guard after the harness was gone or an injection outlived its bound. */
  readonly by: 'harness' | 'guard';
}

/**
 * Every command fencepost executes against a target, appended as it runs (one JSON line each, flushed at once): the
 * record `--dry-run` is compared with, and what a user reads to know exactly what was done to their servers.
 * A null log (dry run, unit tests) keeps nothing.
 */
export class CommandLog {
  /** Entries from before the run had a folder (a preflight's commands), written out by `attach`. */
  private pending: LoggedCommand[] = [];

  constructor(
    private file: string | null,
    private readonly by: LoggedCommand['by'] = 'harness',
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

  /** Runs `fn`, logging `cmd` with its outcome; rethrows what `fn` threw. */
  async run<T>(cmd: PlannedCommand, fn: () => Promise<T>): Promise<T> {
    const at = Date.now();
    try {
      const out = await fn();
      this.append({ ...cmd, at, ok: true, by: this.by });
      return out;
    } catch (err) {
      this.append({ ...cmd, at, ok: false, error: (err as Error).message.slice(0, 500), by: this.by });
      throw err;
    }
  }

  private append(entry: LoggedCommand): void {
    if (this.file) fs.appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: RUN_FILE_MODE });
    else if (this.buffer) this.pending.push(entry);
  }

  /** The log's entries (a file missing or a torn last line read as what is there). */
  static read(file: string): LoggedCommand[] {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    const out: LoggedCommand[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as LoggedCommand);
      } catch {
        // a line torn by a crash mid-write: the ones before it stand
      }
    }
    return out;
  }
}
