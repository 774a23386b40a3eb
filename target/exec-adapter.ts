import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import {
  shellLine,
  type AdapterEvidence,
  type InjectAction,
  type PlannedCommand,
  type ServerFaultAdapter,
} from './adapter.ts';
import { HEAL_OF } from './adapter.ts';
import type { CommandLog } from './command-log.ts';
import type { AdapterAction, ExecAdapterSpec } from './target-spec.ts';
import { INJECTION_ENV, stopOrphanedCommand } from './orphaned-command.ts';
import { targetProgram } from './target-program.ts';

/** The most of a command's output kept as evidence: enough for `ps` lines, not a log. */
const EVIDENCE_CHARS = 1000;

/**
 * A command per action, with the node as an argument (`{node}`): covers SSH, `docker`, `kubectl exec … kill -STOP`,
 * a cloud CLI. A command that exits non-zero or outlives `timeoutMs` failed, and the fault says so; its stderr is in
 * the error. The optional `evidence` command's output is recorded as the adapter's evidence (a `ps` line, a state).
 */
export class ExecAdapter implements ServerFaultAdapter {
  readonly actions: readonly AdapterAction[];
  readonly commandBoundMs: number;

  constructor(
    readonly spec: ExecAdapterSpec,
    private readonly log: CommandLog,
  ) {
    this.actions = (['pause', 'resume', 'kill', 'start'] as const).filter((a) => spec.commands[a]);
    this.commandBoundMs = spec.timeoutMs;
  }

  /** The argv for `action` on `node`, its program resolved against the target file's folder when it names a path. */
  private argv(action: AdapterAction | 'evidence', node: string): string[] {
    const words = this.spec.commands[action];
    if (!words) throw new Error(`adapter ${this.spec.name} (exec) has no ${action} command`);
    const [program, ...args] = words.map((w) => w.replaceAll('{node}', node));
    return [targetProgram(this.spec.cwd, program), ...args];
  }

  plan(action: AdapterAction | 'evidence', node: string): PlannedCommand {
    return { adapter: this.spec.name, action, node, command: shellLine(this.argv(action, node)) };
  }

  /** None: its preflight only looks for each program, executing nothing. */
  preflightPlan(): PlannedCommand[] {
    return [];
  }

  async preflight(nodes: readonly string[]): Promise<string[]> {
    const problems: string[] = [];
    for (const action of [...this.actions, ...(this.spec.commands.evidence ? (['evidence'] as const) : [])]) {
      for (const node of nodes) {
        const [file] = this.argv(action, node);
        if (!programExists(file))
          problems.push(
            `adapter ${this.spec.name}: the ${action} command's program ${file} is not found or not executable`,
          );
      }
    }
    return [...new Set(problems)];
  }

  private async exec(
    action: AdapterAction | 'evidence',
    node: string,
    marker?: string,
  ): Promise<{ stdout: string; exitCode: number }> {
    const [file, ...args] = this.argv(action, node);
    const r = await execa(file, args, {
      cwd: this.spec.cwd,
      timeout: this.spec.timeoutMs,
      reject: false,
      stdin: 'ignore',
      // Inherited by everything the command starts: how the guard finds it if the harness dies meanwhile.
      ...(marker ? { env: { [INJECTION_ENV]: marker } } : {}),
    });
    if (r.timedOut) {
      // The timeout killed the command's own process; a child it started (its output elsewhere) would still act,
      // after the heal that follows this failure. Everything that carries its marker goes with it.
      if (marker) stopOrphanedCommand(marker);
      throw new Error(`${shellLine([file, ...args])} did not finish within ${this.spec.timeoutMs} ms`);
    }
    if (action !== 'evidence' && r.exitCode !== 0)
      throw new Error(
        `${shellLine([file, ...args])} exited ${r.exitCode ?? r.signal}${r.stderr ? `: ${String(r.stderr).trim().slice(-400)}` : ''}`,
      );
    return { stdout: String(r.stdout ?? ''), exitCode: r.exitCode ?? -1 };
  }

  async inject(action: InjectAction, node: string, marker?: string): Promise<void> {
    await this.log.run(this.plan(action, node), () => this.exec(action, node, marker));
  }

  async heal(action: InjectAction, node: string): Promise<void> {
    const undo = HEAL_OF[action];
    await this.log.run(this.plan(undo, node), () => this.exec(undo, node));
  }

  async evidence(node: string): Promise<AdapterEvidence> {
    if (!this.spec.commands.evidence) return { acted: true, detail: { evidenceCommand: 'none' }, pids: [] };
    try {
      const { stdout, exitCode } = await this.log.run(this.plan('evidence', node), () => this.exec('evidence', node));
      const output = stdout.trim().slice(0, EVIDENCE_CHARS);
      // A `pid 1234` (or `pids: 1 2`) line in the output names the node's processes.
      const pidLine = /\bpids?:?\s+([\d\s,]+)/i.exec(output)?.[1] ?? '';
      const pids = pidLine
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number)
        .filter(Number.isInteger);
      return { acted: exitCode === 0, detail: { output, exitCode }, pids };
    } catch (err) {
      return { acted: false, detail: { error: (err as Error).message }, pids: [] };
    }
  }

  async cleanup(): Promise<string[]> {
    // Nothing of its own: every command it ran was healed by its pair (or by the injection guard).
    return [];
  }
}

/** A program named by path must exist and be executable; a bare name is looked up on PATH. */
function programExists(file: string): boolean {
  const candidates = file.includes('/')
    ? [file]
    : (process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, file));
  return candidates.some((c) => {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      return fs.statSync(c).isFile();
    } catch {
      return false;
    }
  });
}
