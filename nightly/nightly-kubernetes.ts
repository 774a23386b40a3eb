import { stringify } from 'yaml';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import type { NightlyConfig } from './nightly-config.ts';
import { shellLine } from '../target/adapter.ts';
import { nightlySettings } from './nightly.ts';

/** Where every pod mounts the shared results volume. */
export const RESULTS_MOUNT = '/results';
/** How long the merge step waits for the shards before it gives up (s): a night that did not finish in this is lost. */
export const MERGE_DEADLINE_S = 12 * 3600;

export interface NightlyJobOptions {
  /** The published image the pods run: fencepost, its servers and `fencepost` on PATH. */
  image: string;
  shards: number;
  seed: number;
  /** The night's settings, the same on every shard (nightly.ts `nightlySettings`). */
  settings: readonly string[];
}

/** A Kubernetes object as plain data (what kubectl and the models read). */
export type Manifest = Record<string, unknown>;

/**
 * The night as Kubernetes objects: a volume claim for the results; an Indexed Job with one pod per shard, each running
 * `fencepost nightly --shard=$((JOB_COMPLETION_INDEX+1))/N` with the same seed and settings into its own folder of the
 * volume; and the merge step, a Job that waits for every shard's result file and runs `nightly merge` over them.
 * A shard that ends with a verdict (exit 1: a cell contradicted its expectation, 2: inconclusive) fails its index
 * without a retry (podFailurePolicy FailIndex); a crash (any other exit) is retried once (backoffLimitPerIndex); a failed
 * index does not stop the others (maxFailedIndexes = N), so the merge always gets to say which shards are missing.
 */
export function nightlyJob(o: NightlyJobOptions): Manifest[] {
  const name = `fencepost-nightly-${o.seed}`;
  const claim = `${name}-results`;
  const labels = { 'app.kubernetes.io/name': 'fencepost-nightly', 'fencepost.seed': String(o.seed) };
  const volume = { name: 'results', persistentVolumeClaim: { claimName: claim } };
  const mount = { name: 'results', mountPath: RESULTS_MOUNT };
  const shardArgs = shellLine(['fencepost', 'nightly', ...o.settings, `--seed=${o.seed}`]);
  const shardCommand = `exec ${shardArgs} --shard=$((JOB_COMPLETION_INDEX+1))/${o.shards} --results=${RESULTS_MOUNT}/shard-$JOB_COMPLETION_INDEX`;
  const folders = Array.from({ length: o.shards }, (_, i) => `${RESULTS_MOUNT}/shard-${i}`);
  const mergeCommand = [
    `until [ "$(ls ${RESULTS_MOUNT}/shard-*/nightly.shard-*-of-${o.shards}.json 2>/dev/null | wc -l)" -ge ${o.shards} ]; do sleep 30; done`,
    `exec ${shellLine(['fencepost', 'nightly', 'merge', ...folders, `--results=${RESULTS_MOUNT}/merged`])}`,
  ].join('; ');
  const pod = (container: Manifest) => ({
    metadata: { labels },
    spec: { restartPolicy: 'Never', containers: [container], volumes: [volume] },
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim, labels },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '2Gi' } } },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, labels },
      spec: {
        completionMode: 'Indexed',
        completions: o.shards,
        parallelism: o.shards,
        backoffLimitPerIndex: 1,
        maxFailedIndexes: o.shards,
        podReplacementPolicy: 'Failed',
        podFailurePolicy: {
          rules: [{ action: 'FailIndex', onExitCodes: { containerName: 'shard', operator: 'In', values: [1, 2] } }],
        },
        template: pod({
          name: 'shard',
          image: o.image,
          command: ['sh', '-c', shardCommand],
          // Two cores: what the nightly's --parallel default and its timings were measured on.
          resources: { requests: { cpu: '2', memory: '3Gi' } },
          volumeMounts: [mount],
        }),
      },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: `${name}-merge`, labels },
      spec: {
        completions: 1,
        backoffLimit: 0,
        activeDeadlineSeconds: MERGE_DEADLINE_S,
        template: pod({
          name: 'merge',
          image: o.image,
          command: ['sh', '-c', mergeCommand],
          resources: { requests: { cpu: '100m', memory: '256Mi' } },
          volumeMounts: [mount],
        }),
      },
    },
  ];
}

/** The manifests as one YAML stream (`kubectl apply -f -` takes it). */
export function manifestsYaml(manifests: readonly Manifest[]): string {
  return manifests.map((m) => stringify(m, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
}

/** `nightly --emit=kubernetes --image=<ref> [--shards=N]`: prints the night's manifests; runs nothing. */
export function emitKubernetes(
  config: Readonly<NightlyConfig>,
  out: (text: string) => void = (t) => process.stdout.write(t),
): number {
  if (!config.image)
    throw new HarnessError(
      'bad-arguments',
      'nightly --emit=kubernetes needs --image=<the published image the pods run>',
      {
        hint: 'e.g. --image=registry.example.com/fencepost:0.1.0 (fencepost and its servers installed, `fencepost` on PATH)',
      },
    );
  if (config.shard)
    throw new HarnessError(
      'bad-arguments',
      '--shard with --emit: every pod takes its own shard from JOB_COMPLETION_INDEX',
      {
        hint: 'drop --shard; --shards=<n> says how many',
      },
    );
  out(`# fencepost nightly: ${config.shards} shards, seed ${config.seed}; kubectl apply -f <this file>\n`);
  out(
    manifestsYaml(
      nightlyJob({
        image: config.image,
        shards: config.shards,
        seed: config.seed,
        settings: nightlySettings(config).argv,
      }),
    ),
  );
  return EXIT.valid;
}
