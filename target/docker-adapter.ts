import Docker from 'dockerode';
import type { AdapterEvidence, InjectAction, PlannedCommand, ServerFaultAdapter } from './adapter.ts';
import { HEAL_OF, shellLine } from './adapter.ts';
import type { CommandLog } from './command-log.ts';
import type { AdapterAction, DockerAdapterSpec } from './target-spec.ts';

/** The `docker` command each Engine API call is the same as: what --dry-run and the command log print. */
const CLI_OF: Readonly<Record<AdapterAction | 'evidence', (c: string) => string>> = {
  pause: (c) => shellLine(['docker', 'pause', c]),
  resume: (c) => shellLine(['docker', 'unpause', c]),
  kill: (c) => shellLine(['docker', 'kill', '--signal=SIGKILL', c]),
  start: (c) => shellLine(['docker', 'start', c]),
  evidence: (c) => shellLine(['docker', 'inspect', c]),
};

/**
 * How long the engine may take to carry out one call a harness sent before it died: a pause or a kill is done in
 * milliseconds; a start of a large container, seconds.
 */
const ENGINE_CALL_MS = 30_000;

/**
 * Pause, kill and restart a named container through the Docker Engine API (dockerode): `pause` freezes every
 * process of the container (the cgroup freezer), `kill` is SIGKILL to its main process, `start` starts the same
 * container again — with its data if it keeps any, empty if its server keeps none. Evidence is the engine's own
 * account of the container: its state, main pid, restarts and start time.
 */
export class DockerAdapter implements ServerFaultAdapter {
  readonly actions: readonly AdapterAction[] = ['pause', 'resume', 'kill', 'start'];
  readonly commandBoundMs = ENGINE_CALL_MS;
  private readonly docker: Docker;

  constructor(
    readonly spec: DockerAdapterSpec,
    private readonly log: CommandLog,
  ) {
    this.docker = new Docker(spec.socketPath ? { socketPath: spec.socketPath } : undefined);
  }

  plan(action: AdapterAction | 'evidence', node: string): PlannedCommand {
    return { adapter: this.spec.name, action, node, command: CLI_OF[action](node) };
  }

  /** The engine's `/_ping` (what `docker version` asks first), then each container's inspect. */
  preflightPlan(nodes: readonly string[]): PlannedCommand[] {
    return [
      { adapter: this.spec.name, action: 'preflight', node: '*', command: 'docker version' },
      ...nodes.map((n) => ({ ...this.plan('evidence', n), action: 'preflight' as const })),
    ];
  }

  async preflight(nodes: readonly string[]): Promise<string[]> {
    const where = this.spec.socketPath ?? process.env.DOCKER_HOST ?? '/var/run/docker.sock';
    const [ping, ...inspect] = this.preflightPlan(nodes);
    try {
      await this.log.run(ping, () => withTimeout(this.docker.ping(), 3000));
    } catch (err) {
      return [`adapter ${this.spec.name}: no Docker engine answers at ${where} (${(err as Error).message})`];
    }
    const problems: string[] = [];
    for (const [i, node] of nodes.entries()) {
      try {
        const info = await this.log.run(inspect[i], () => this.docker.getContainer(node).inspect());
        if (!info.State.Running || info.State.Paused)
          problems.push(`adapter ${this.spec.name}: container ${node} is ${info.State.Status}, not running`);
      } catch (err) {
        problems.push(`adapter ${this.spec.name}: no container ${node} (${(err as Error).message.split('\n')[0]})`);
      }
    }
    return problems;
  }

  private async act(action: AdapterAction, node: string): Promise<void> {
    const c = this.docker.getContainer(node);
    await this.log.run(this.plan(action, node), async () => {
      try {
        if (action === 'pause') await c.pause();
        else if (action === 'resume') await c.unpause();
        else if (action === 'kill') await c.kill({ signal: 'SIGKILL' });
        else await c.start();
      } catch (err) {
        // Healing twice is no error: the guard and the harness may both undo one injection.
        if (isAlready(err, action)) return;
        throw err;
      }
    });
  }

  async inject(action: InjectAction, node: string): Promise<void> {
    await this.act(action, node);
  }

  async heal(action: InjectAction, node: string): Promise<void> {
    await this.act(HEAL_OF[action], node);
  }

  async evidence(node: string): Promise<AdapterEvidence> {
    try {
      const info = await this.log.run(this.plan('evidence', node), () => this.docker.getContainer(node).inspect());
      const s = info.State;
      return {
        acted: true,
        detail: {
          container: node,
          status: s.Status,
          paused: s.Paused,
          running: s.Running,
          pid: s.Pid,
          restartCount: info.RestartCount,
          startedAt: s.StartedAt,
          exitCode: s.ExitCode,
        },
        pids: s.Pid > 0 ? [s.Pid] : [],
      };
    } catch (err) {
      return { acted: false, detail: { container: node, error: (err as Error).message.split('\n')[0] }, pids: [] };
    }
  }

  async cleanup(): Promise<string[]> {
    return [];
  }
}

/** The engine's answer that the container already is where the heal would put it (304 Not Modified, 409 Conflict). */
function isAlready(err: unknown, action: AdapterAction): boolean {
  const status = (err as { statusCode?: number }).statusCode;
  const text = (err as Error).message ?? '';
  if (action === 'start') return status === 304;
  if (action === 'resume') return status === 409 && /not paused/i.test(text);
  return false;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
