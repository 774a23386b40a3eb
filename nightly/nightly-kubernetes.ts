import { stringify } from 'yaml';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import type { NightlyConfig } from './nightly-config.ts';
import { shellLine } from '../target/adapter.ts';
import { nightlySettings } from './nightly.ts';
import { INPUTS_KEY, INPUTS_MOUNT, nightInputs, unpackInputs } from './nightly-inputs.ts';
import { shardBound } from './shard-bound.ts';

/** Where every pod mounts the shared results volume. */
export const RESULTS_MOUNT = '/results';
/** How far past the shards' bound the merge waits for their last files to land (s). */
export const MERGE_GRACE_S = 120;

export interface NightlyJobOptions {
  /** The published image the pods run: fencepost, its servers and `fencepost` on PATH. */
  image: string;
  shards: number;
  seed: number;
  /** The night's settings, the same on every shard (nightly.ts `nightlySettings`). */
  settings: readonly string[];
  /** Nightly's own options every shard runs with (`--cells`, `--parallel`, the carried files'). */
  shardArgs?: readonly string[];
  /** The merge's own (`--baseline`). */
  mergeArgs?: readonly string[];
  /** The carried files as a gzipped tar, base64 (nightly-inputs.ts), or none. */
  inputs?: string | null;
  /** How long a shard may run (s): past it the Job stops it, and the merge merges what there is. */
  shardBoundS: number;
  /** Cores each shard requests: one per cell it runs at once (--parallel), two at least. */
  cpu?: number;
}

/** A Kubernetes object as plain data (what kubectl and the models read). */
export type Manifest = Record<string, unknown>;

/**
 * The night as Kubernetes objects: a volume claim for the results; the files the night carries (a ConfigMap, when
 * there are any); an Indexed Job with one pod per shard, each running `fencepost nightly
 * --shard=$((JOB_COMPLETION_INDEX+1))/N` with the same seed and settings into its own folder of the volume, stopped at
 * `shardBoundS`; and the merge step, a Job that waits for every shard's result file — or for that bound, since a
 * shard that crashed twice, was OOM-killed or refused its arguments never writes one — then runs `nightly merge
 * --partial`, which merges what there is and names the missing shards (such a night never passes). A shard that
 * ends with a verdict (exit 1: a cell contradicted its expectation, 2: inconclusive) or a refusal (254: the same in
 * every attempt) fails its index without a retry (podFailurePolicy FailIndex); a crash (any other exit) is retried
 * once (backoffLimitPerIndex); a failed index does not stop the others (maxFailedIndexes = N).
 */
export function nightlyJob(o: NightlyJobOptions): Manifest[] {
  const name = `fencepost-nightly-${o.seed}`;
  const claim = `${name}-results`;
  const inputsName = `${name}-inputs`;
  const labels = { 'app.kubernetes.io/name': 'fencepost-nightly', 'fencepost.seed': String(o.seed) };
  const volumes: Manifest[] = [{ name: 'results', persistentVolumeClaim: { claimName: claim } }];
  const mounts: Manifest[] = [{ name: 'results', mountPath: RESULTS_MOUNT }];
  if (o.inputs) {
    volumes.push({ name: 'inputs', configMap: { name: inputsName } });
    mounts.push({ name: 'inputs', mountPath: INPUTS_MOUNT, readOnly: true });
  }
  const unpack = unpackInputs({ tgz: o.inputs ?? null });
  const shardArgs = shellLine(['fencepost', 'nightly', ...o.settings, ...(o.shardArgs ?? []), `--seed=${o.seed}`]);
  const shardCommand = `${unpack}exec ${shardArgs} --shard=$((JOB_COMPLETION_INDEX+1))/${o.shards} --results=${RESULTS_MOUNT}/shard-$JOB_COMPLETION_INDEX`;
  const folders = Array.from({ length: o.shards }, (_, i) => `${RESULTS_MOUNT}/shard-${i}`);
  const waitS = o.shardBoundS + MERGE_GRACE_S;
  const mergeCommand = [
    `end=$(($(date +%s)+${waitS}))`,
    `until [ "$(ls ${RESULTS_MOUNT}/shard-*/nightly.shard-*-of-${o.shards}.json 2>/dev/null | wc -l)" -ge ${o.shards} ] || [ "$(date +%s)" -ge "$end" ]; do sleep 30; done`,
    `${o.mergeArgs?.length ? unpack : ''}exec ${shellLine(['fencepost', 'nightly', 'merge', ...folders, '--partial', ...(o.mergeArgs ?? []), `--results=${RESULTS_MOUNT}/merged`])}`,
  ].join('; ');
  const pod = (container: Manifest) => ({
    metadata: { labels },
    spec: { restartPolicy: 'Never', containers: [{ ...container, volumeMounts: mounts }], volumes },
  });
  const cpu = Math.max(2, o.cpu ?? 2);
  return [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim, labels },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '2Gi' } } },
    },
    ...(o.inputs
      ? [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: inputsName, labels },
            binaryData: { [INPUTS_KEY]: o.inputs },
          },
        ]
      : []),
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
        activeDeadlineSeconds: o.shardBoundS,
        podReplacementPolicy: 'Failed',
        podFailurePolicy: {
          rules: [
            { action: 'FailIndex', onExitCodes: { containerName: 'shard', operator: 'In', values: [1, 2, 254] } },
          ],
        },
        template: pod({
          name: 'shard',
          image: o.image,
          command: ['sh', '-c', shardCommand],
          // Two cores: what the nightly's --parallel default and its timings were measured on; one per cell at once.
          resources: { requests: { cpu: String(cpu), memory: `${Math.ceil(cpu * 1.5)}Gi` } },
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
        // Its wait, then an hour for the merge itself.
        activeDeadlineSeconds: waitS + 3600,
        template: pod({
          name: 'merge',
          image: o.image,
          command: ['sh', '-c', mergeCommand],
          resources: { requests: { cpu: '100m', memory: '256Mi' } },
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
export async function emitKubernetes(
  config: Readonly<NightlyConfig>,
  out: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
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
  const inputs = await nightInputs(config);
  const given = (name: string) => config.spelled.some((s) => s.name === name);
  const shardArgs = [
    ...(config.cells === 'all' ? [] : [`--cells=${config.cells}`]),
    ...(given('parallel') ? [`--parallel=${config.parallel}`] : []),
    ...inputs.shardArgs,
  ];
  const shardBoundS = shardBound(config);
  out(
    `# fencepost nightly: ${config.shards} shards, seed ${config.seed}; each shard stopped after ${shardBoundS} s, then the merge merges what there is; kubectl apply -f <this file>\n`,
  );
  if (inputs.carried.length)
    out(`# carried into the pods (ConfigMap fencepost-nightly-${config.seed}-inputs): ${inputs.carried.join(' ')}\n`);
  out(
    manifestsYaml(
      nightlyJob({
        image: config.image,
        shards: config.shards,
        seed: config.seed,
        settings: nightlySettings(config).argv,
        shardArgs,
        mergeArgs: inputs.mergeArgs,
        inputs: inputs.tgz,
        shardBoundS,
        ...(given('parallel') ? { cpu: config.parallel } : {}),
      }),
    ),
  );
  return EXIT.valid;
}
