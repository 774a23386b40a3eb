import { execa } from 'execa';
import {
  shellLine,
  type AdapterEvidence,
  type InjectAction,
  type PlannedCommand,
  type ServerFaultAdapter,
} from './adapter.ts';
import { HEAL_OF } from './adapter.ts';
import { podChaosProblems, podKill, RUN_LABEL, dnsName } from './chaos-mesh-manifest.ts';
import type { CommandLog } from './command-log.ts';
import type { AdapterAction, KubernetesAdapterSpec } from './target-spec.ts';
import { INJECTION_ENV, stopOrphanedCommand } from './orphaned-command.ts';

const TIMEOUT_MS = 60_000;

/**
 * Why neither mode pauses, said wherever a pause through this adapter is refused. In a pod the server is PID 1 of
 * its PID namespace, and the kernel delivers to that namespace's init, from inside it, only the signals it has a
 * handler for — SIGSTOP can have none (pid_namespaces(7)). `kubectl exec` runs inside that namespace, and so does an
 * ephemeral container of `kubectl debug --target=<container>` (it joins the target's process namespace): `kill -STOP
 * 1` from either returns 0 and stops nothing, so every pause would be a silent miss (audit R9).
 */
export const KUBERNETES_NO_PAUSE =
  "a pod's server is PID 1 of its PID namespace, and the kernel drops a SIGSTOP sent to it from inside that namespace, where `kubectl exec` and `kubectl debug --target` both run; Chaos Mesh has no SIGSTOP";

/** What to use instead: something that stops the server from outside its pod. */
export const KUBERNETES_PAUSE_INSTEAD =
  'pause through an "exec" adapter whose pause/resume commands act from the pod\'s node, outside its PID namespace (`ctr -n k8s.io task pause <container id>` / `task resume`, or `kill -STOP`/`-CONT` of the server\'s host pid), or drop the fault that pauses';

/**
 * Acts on named pods through `kubectl`, in one of two ways the file chooses; neither can pause (KUBERNETES_NO_PAUSE):
 * - `pod`: `kubectl delete pod` kills the server, and its controller (a StatefulSet, whose pods keep their names)
 *   starts it again;
 * - `chaos-mesh`: kill by applying a PodChaos (`pod-kill`) that fencepost writes, labelled with the run, and heal by
 *   deleting it.
 * What runs is always the `kubectl` argv `plan` prints; a PodChaos goes in on stdin (`apply -f -`).
 */
export class KubernetesAdapter implements ServerFaultAdapter {
  readonly actions: readonly AdapterAction[];
  readonly commandBoundMs = TIMEOUT_MS;

  constructor(
    readonly spec: KubernetesAdapterSpec,
    private readonly log: CommandLog,
    private readonly runId: string,
  ) {
    this.actions = ['kill', 'start'];
  }

  private kubectl(...words: string[]): string[] {
    const { kubectl, context, namespace } = this.spec;
    return [kubectl, ...(context ? ['--context', context] : []), '--namespace', namespace, ...words];
  }

  private argv(action: AdapterAction | 'evidence', pod: string): string[] {
    const chaos = dnsName('fencepost', pod, 'pod-kill');
    if (action === 'evidence') return this.kubectl('get', 'pod', pod, '-o', 'json');
    if (action === 'pause' || action === 'resume')
      throw new Error(
        `adapter ${this.spec.name} (kubernetes, ${this.spec.mode}) cannot ${action}: ${KUBERNETES_NO_PAUSE}`,
      );
    if (this.spec.mode === 'chaos-mesh') {
      if (action === 'kill') return this.kubectl('apply', '-f', '-');
      return this.kubectl('delete', 'podchaos', chaos, '--ignore-not-found');
    }
    if (action === 'kill') return this.kubectl('delete', 'pod', pod, '--grace-period=0', '--force', '--wait=false');
    return this.kubectl('wait', '--for=condition=Ready', `pod/${pod}`, '--timeout=120s');
  }

  plan(action: AdapterAction | 'evidence', node: string): PlannedCommand {
    return { adapter: this.spec.name, action, node, command: shellLine(this.argv(action, node)) };
  }

  /** The PodChaos a chaos-mesh kill applies (checked against the fields Chaos Mesh accepts before it is sent). */
  manifest(pod: string): string {
    const chaos = podKill(this.spec.namespace, pod, this.runId);
    const problems = podChaosProblems(chaos);
    if (problems.length) throw new Error(`PodChaos for ${pod} is malformed: ${problems.join('; ')}`);
    return JSON.stringify(chaos);
  }

  /**
   * `marker`, for an injecting command: kubectl runs with it in its environment, as an exec adapter's command does
   * (orphaned-command.ts), so a `kubectl delete pod` still waiting on an API server when the harness died is found and
   * stopped by the guard before its heal, rather than deleting the pod after it; and one that outlived its bound here
   * is stopped with everything it started.
   */
  private async run(argv: string[], input?: string, marker?: string): Promise<string> {
    const [file, ...args] = argv;
    const r = await execa(file, args, {
      timeout: TIMEOUT_MS,
      reject: false,
      ...(input ? { input } : { stdin: 'ignore' }),
      ...(marker ? { env: { [INJECTION_ENV]: marker } } : {}),
    });
    if (r.timedOut && marker) stopOrphanedCommand(marker);
    if (r.exitCode !== 0)
      throw new Error(
        `${shellLine(argv)} exited ${r.exitCode ?? r.signal}: ${String(r.stderr ?? '')
          .trim()
          .slice(-400)}`,
      );
    return String(r.stdout ?? '');
  }

  /** Whether kubectl may do what the mode needs, then that each pod exists. */
  private preflightArgv(nodes: readonly string[]): { node: string; argv: string[] }[] {
    const verb = this.spec.mode === 'pod' ? ['delete', 'pods'] : ['create', 'podchaos.chaos-mesh.org'];
    return [
      { node: '*', argv: this.kubectl('auth', 'can-i', ...verb) },
      ...nodes.map((n) => ({ node: n, argv: this.kubectl('get', 'pod', n) })),
    ];
  }

  preflightPlan(nodes: readonly string[]): PlannedCommand[] {
    return this.preflightArgv(nodes).map(({ node, argv }) => ({
      adapter: this.spec.name,
      action: 'preflight',
      node,
      command: shellLine(argv),
    }));
  }

  async preflight(nodes: readonly string[]): Promise<string[]> {
    const problems: string[] = [];
    const planned = this.preflightPlan(nodes);
    for (const [i, { argv }] of this.preflightArgv(nodes).entries()) {
      try {
        await this.log.run(planned[i], () => this.run(argv));
      } catch (err) {
        problems.push(`adapter ${this.spec.name}: ${(err as Error).message}`);
      }
    }
    return problems;
  }

  private async act(action: AdapterAction, pod: string, marker?: string): Promise<void> {
    const input = this.spec.mode === 'chaos-mesh' && action === 'kill' ? this.manifest(pod) : undefined;
    await this.log.run(this.plan(action, pod), () => this.run(this.argv(action, pod), input, marker));
  }

  async inject(action: InjectAction, node: string, marker?: string): Promise<void> {
    await this.act(action, node, marker);
  }

  async heal(action: InjectAction, node: string): Promise<void> {
    await this.act(HEAL_OF[action], node);
  }

  async evidence(node: string): Promise<AdapterEvidence> {
    try {
      const out = await this.log.run(this.plan('evidence', node), () => this.run(this.argv('evidence', node)));
      const pod = JSON.parse(out) as {
        status?: { phase?: string; startTime?: string; containerStatuses?: { restartCount?: number }[] };
      };
      const restarts = (pod.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
      return {
        acted: true,
        detail: { pod: node, phase: pod.status?.phase, startTime: pod.status?.startTime, restarts },
        pids: [],
      };
    } catch (err) {
      return { acted: false, detail: { pod: node, error: (err as Error).message }, pids: [] };
    }
  }

  /** Chaos objects labelled with the run (chaos-mesh mode); pod mode creates nothing. */
  async cleanup(runId: string): Promise<string[]> {
    if (this.spec.mode !== 'chaos-mesh') return [];
    const argv = this.kubectl(
      'delete',
      'podchaos',
      '-l',
      `${RUN_LABEL}=${dnsName(runId)}`,
      '-o',
      'name',
      '--ignore-not-found',
    );
    const out = await this.log.run(
      { adapter: this.spec.name, action: 'cleanup', node: '*', command: shellLine(argv) },
      () => this.run(argv),
    );
    return out.split('\n').filter(Boolean);
  }
}
