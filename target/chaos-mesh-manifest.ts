import { isRecord } from '../common/is-record.ts';

/** The label every object fencepost creates in a cluster carries: `cleanup` deletes by it, and only by it. */
export const RUN_LABEL = 'fencepost.run';

/**
 * The values Chaos Mesh accepts for the fields fencepost writes (chaos-mesh/chaos-mesh api/v1alpha1:
 * podchaos_types.go `PodChaosAction`, selector.go `SelectorMode`). Checked here because no schema of Chaos Mesh's
 * CRDs ships on npm; the Kubernetes models validate the built-in kinds (nightly/nightly-kubernetes.ts).
 */
export const POD_CHAOS_ACTIONS = ['pod-kill', 'pod-failure', 'container-kill'] as const;
export const SELECTOR_MODES = ['one', 'all', 'fixed', 'fixed-percent', 'random-max-percent'] as const;

export interface PodChaos {
  apiVersion: 'chaos-mesh.org/v1alpha1';
  kind: 'PodChaos';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: {
    action: (typeof POD_CHAOS_ACTIONS)[number];
    mode: (typeof SELECTOR_MODES)[number];
    selector: { pods: Record<string, string[]> };
    gracePeriod?: number;
  };
}

/** A DNS-1123 name (what Kubernetes accepts as an object's name): lower-case, dashes, at most 63 characters. */
export function dnsName(...parts: string[]): string {
  const name = parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name.slice(0, 63).replace(/-+$/, '');
}

/**
 * The PodChaos that kills one named pod at once (`pod-kill`, grace period 0): a one-shot action that needs no
 * expiry of its own — the pod's controller starts it again — and deleting the object is the heal. Labelled with
 * the run, so `cleanup` can remove what a dead run left.
 */
export function podKill(namespace: string, pod: string, runId: string): PodChaos {
  return {
    apiVersion: 'chaos-mesh.org/v1alpha1',
    kind: 'PodChaos',
    metadata: { name: dnsName('fencepost', pod, 'pod-kill'), namespace, labels: { [RUN_LABEL]: dnsName(runId) } },
    spec: { action: 'pod-kill', mode: 'one', selector: { pods: { [namespace]: [pod] } }, gracePeriod: 0 },
  };
}

/** What is wrong with a PodChaos object, against the fields fencepost writes; [] when nothing. */
export function podChaosProblems(obj: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(obj)) return ['not an object'];
  if (obj.apiVersion !== 'chaos-mesh.org/v1alpha1') problems.push('apiVersion must be chaos-mesh.org/v1alpha1');
  if (obj.kind !== 'PodChaos') problems.push('kind must be PodChaos');
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  if (typeof meta.name !== 'string' || !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(meta.name))
    problems.push('metadata.name must be a DNS-1123 name');
  if (typeof meta.namespace !== 'string' || meta.namespace === '') problems.push('metadata.namespace is required');
  const spec = isRecord(obj.spec) ? obj.spec : {};
  if (!(POD_CHAOS_ACTIONS as readonly unknown[]).includes(spec.action))
    problems.push(`spec.action must be one of ${POD_CHAOS_ACTIONS.join(', ')}`);
  if (!(SELECTOR_MODES as readonly unknown[]).includes(spec.mode))
    problems.push(`spec.mode must be one of ${SELECTOR_MODES.join(', ')}`);
  const pods = isRecord(spec.selector) && isRecord(spec.selector.pods) ? spec.selector.pods : null;
  if (!pods || !Object.values(pods).every((v) => Array.isArray(v) && v.every((p) => typeof p === 'string')))
    problems.push('spec.selector.pods must map namespaces to pod names');
  if (spec.gracePeriod !== undefined && (!Number.isInteger(spec.gracePeriod) || (spec.gracePeriod as number) < 0))
    problems.push('spec.gracePeriod must be a whole number ≥ 0');
  return problems;
}
