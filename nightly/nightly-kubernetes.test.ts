import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { parseCommandLine } from '../cli/command-line.ts';
import { emitKubernetes, manifestsYaml, nightlyJob, type Manifest } from './nightly-kubernetes.ts';

/** Validates one object against the Kubernetes schema (v1.33, offline: kubernetes-models 4.5.x), by its kind. */
function validate(m: Manifest): void {
  if (m.kind === 'Job') new Job(m as ConstructorParameters<typeof Job>[0]).validate();
  else if (m.kind === 'PersistentVolumeClaim')
    new PersistentVolumeClaim(m as ConstructorParameters<typeof PersistentVolumeClaim>[0]).validate();
  else throw new Error(`no model for kind ${String(m.kind)}`);
}

/** What `nightly --emit=kubernetes` prints, read back as the objects kubectl would apply. */
function emitted(argv: string[]): Manifest[] {
  const config = parseCommandLine(['nightly', '--emit=kubernetes', ...argv]);
  if (config.command !== 'nightly') throw new Error('not nightly');
  let text = '';
  expect(emitKubernetes(config, (t) => (text += t))).toBe(0);
  return parseAllDocuments(text).map((d) => d.toJSON() as Manifest);
}

describe('nightly --emit=kubernetes', () => {
  const docs = emitted(['--image=registry.example/fencepost:0.1.0', '--shards=3', '--seed=42', '--time-limit=20']);
  const [, job, merge] = docs as [Manifest, any, any];

  it('every object it prints validates against the Kubernetes schema', () => {
    expect(docs.map((d) => d.kind)).toEqual(['PersistentVolumeClaim', 'Job', 'Job']);
    for (const d of docs) expect(() => validate(d)).not.toThrow();
  });

  it('is an Indexed Job whose pods take --shard from JOB_COMPLETION_INDEX, one seed and one set of settings for all', () => {
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 3, maxFailedIndexes: 3 });
    const command = job.spec.template.spec.containers[0].command.join(' ');
    expect(command).toContain('--shard=$((JOB_COMPLETION_INDEX+1))/3');
    expect(command).toContain('--results=/results/shard-$JOB_COMPLETION_INDEX');
    expect(command).toContain('--seed=42');
    expect(command).toContain('--time-limit=20');
    expect(command).not.toContain('--emit');
    expect(job.spec.template.spec.containers[0].image).toBe('registry.example/fencepost:0.1.0');
  });

  it('a verdict fails its index without a retry; the merge step waits for every shard and merges them', () => {
    expect(job.spec.podFailurePolicy.rules[0]).toMatchObject({ action: 'FailIndex', onExitCodes: { values: [1, 2] } });
    const m = merge.spec.template.spec.containers[0].command.join(' ');
    expect(m).toContain('-ge 3');
    expect(m).toContain('nightly merge /results/shard-0 /results/shard-1 /results/shard-2 --results=/results/merged');
  });

  it('without --image it is refused (254), naming what to give', () => {
    const config = parseCommandLine(['nightly', '--emit=kubernetes']);
    expect(() => emitKubernetes(config as never, () => {})).toThrow(/needs --image/);
  });
});

describe('the schema check catches a broken manifest', () => {
  const good = nightlyJob({ image: 'i:1', shards: 2, seed: 1, settings: [] });
  const job = good[1] as any;
  const broken: [string, Manifest][] = [
    ['a misspelt completion mode', { ...job, spec: { ...job.spec, completionMode: 'Index' } }],
    ['completions as a string', { ...job, spec: { ...job.spec, completions: '2' } }],
    ['a pod with no containers', { ...job, spec: { ...job.spec, template: { spec: { restartPolicy: 'Never' } } } }],
    [
      'a failure policy with an unknown action',
      { ...job, spec: { ...job.spec, podFailurePolicy: { rules: [{ action: 'Retry' }] } } },
    ],
  ];
  it.each(broken)('%s fails validation', (_, m) => {
    expect(() => validate(m)).toThrow();
  });

  it('the same objects, unbroken, pass (so the failures above are the breakage)', () => {
    for (const d of good) expect(() => validate(d)).not.toThrow();
    expect(manifestsYaml(good).split('---').length).toBe(3);
  });
});
