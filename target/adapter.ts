import type { AdapterAction, AdapterSpec } from './target-spec.ts';

/** The actions that inject (the others heal them). */
export type InjectAction = Extract<AdapterAction, 'pause' | 'kill'>;

/** What undoes each injecting action. */
export const HEAL_OF: Readonly<Record<InjectAction, AdapterAction>> = { pause: 'resume', kill: 'start' };

/**
 * One command an adapter executes, exactly as it is executed and logged: the argv of a program (exec, kubectl), or
 * the Docker Engine API call spelt as the `docker` command that makes it. `--dry-run` prints these; a run appends
 * each one it executes to `target-commands.jsonl` (command-log.ts), and the two are the same strings.
 */
export interface PlannedCommand {
  readonly adapter: string;
  readonly action: AdapterAction | 'evidence' | 'preflight' | 'cleanup' | 'health';
  readonly node: string;
  readonly command: string;
}

/** What an adapter saw of a node: whether its action took effect by its own account, and the details it has. */
export interface AdapterEvidence {
  readonly acted: boolean;
  /** The adapter's own facts (a container's state and pid, a pod's phase, an evidence command's output). */
  readonly detail: Readonly<Record<string, unknown>>;
  /** Process ids the adapter knows for the node (a container's main process), when it knows any. */
  readonly pids: readonly number[];
}

/**
 * The one interface every way of acting on servers fencepost does not own goes through (Jepsen's `Remote`, five
 * verbs). Contract:
 * - `preflight` acts on nothing: it says what would stop each action on each node (a missing program, an engine
 *   that does not answer, a container that does not exist), as problems, [] when none;
 * - `inject` resolves once the action was carried out, or rejects with what went wrong; `heal` undoes it and is safe
 *   to call twice (the injection guard may race the harness) and on a node already healed;
 * - `evidence` reports the node's state as the adapter sees it, never throwing (`acted: false` and why);
 * - `cleanup` removes what the adapter itself created for a run (a Chaos Mesh object) and names it;
 * - `plan` is pure: the exact commands `inject`/`heal`/`evidence` run for a node, for --dry-run and the command log;
 *   `preflightPlan` the same for `preflight`, which logs each command it executes like the others.
 * Every injection also ends by itself if the harness dies: the run's injection guard (injection-guard.ts) calls
 * `heal` from its own process.
 */
export interface ServerFaultAdapter {
  readonly spec: AdapterSpec;
  /** The actions this adapter, as the file configured it, can carry out. */
  readonly actions: readonly AdapterAction[];
  /**
   * The longest one of its commands may take (ms): after it, a command started by a harness that died since can no
   * longer act — the guard stops such a command itself when the adapter ran it with `inject`'s `marker` in its
   * environment (orphaned-command.ts) — so the guard's second heal of an injection it found in flight is final.
   */
  readonly commandBoundMs: number;
  plan(action: AdapterAction | 'evidence', node: string): PlannedCommand;
  /** The commands `preflight` executes for these nodes, as `plan` spells commands (none when it only looks). */
  preflightPlan(nodes: readonly string[]): PlannedCommand[];
  preflight(nodes: readonly string[]): Promise<string[]>;
  /**
   * `marker`: a local process that carries the action out runs with `FENCEPOST_INJECTION=<marker>` in its environment,
   * by which the guard finds and stops it should the harness die while it runs (orphaned-command.ts).
   */
  inject(action: InjectAction, node: string, marker?: string): Promise<void>;
  heal(action: InjectAction, node: string): Promise<void>;
  evidence(node: string): Promise<AdapterEvidence>;
  cleanup(runId: string): Promise<string[]>;
}

/** How an adapter says what it runs: `sh`-quoted words, so a line copied from --dry-run runs as it did. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((w) => (/^[\w@%+=:,./[\]-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`)).join(' ');
}
