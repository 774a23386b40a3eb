import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { parseCommandLine } from '../cli/command-line.ts';
import { emitKubernetes, manifestsYaml, nightlyJob, type Manifest } from './nightly-kubernetes.ts';

/** Validates one object against the Kubernetes schema (v1.33, offline: kubernetes-models 4.5.x), by its kind. */
function validate(m: Manifest): void {
  if (m.kind === 'Job') new Job(m as ConstructorParameters<typeof Job>[0]).validate();
  else if (m.kind === 'ConfigMap') new ConfigMap(m as ConstructorParameters<typeof ConfigMap>[0]).validate();
  else if (m.kind === 'PersistentVolumeClaim')
    new PersistentVolumeClaim(m as ConstructorParameters<typeof PersistentVolumeClaim>[0]).validate();
  else throw new Error(`no model for kind ${String(m.kind)}`);
}

/** What `nightly --emit=kubernetes` prints, read back as the objects kubectl would apply. */
async function emitted(argv: string[]): Promise<Manifest[]> {
  const config = parseCommandLine(['nightly', '--emit=kubernetes', ...argv]);
  if (config.command !== 'nightly') throw new Error('not nightly');
  let text = '';
  expect(await emitKubernetes(config, (t) => (text += t))).toBe(0);
  return parseAllDocuments(text).map((d) => d.toJSON() as Manifest);
}

describe('nightly --emit=kubernetes', () => {
  let docs: Manifest[] = [];
  let job: any;
  let merge: any;
  beforeAll(async () => {
    docs = await emitted(['--image=registry.example/fencepost:0.1.0', '--shards=3', '--seed=42', '--time-limit=20']);
    [, job, merge] = docs as [Manifest, any, any];
  });

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

  it('a verdict or a refusal fails its index without a retry; the merge waits for every shard or the bound', () => {
    expect(job.spec.podFailurePolicy.rules[0]).toMatchObject({
      action: 'FailIndex',
      onExitCodes: { values: [1, 2, 254] },
    });
    const m = merge.spec.template.spec.containers[0].command.join(' ');
    expect(m).toContain('-ge 3');
    expect(m).toContain(`end=$(($(date +%s)+${job.spec.activeDeadlineSeconds + 120}))`);
    expect(m).toContain('|| [ "$(date +%s)" -ge "$end" ]');
    expect(m).toContain(
      'nightly merge /results/shard-0 /results/shard-1 /results/shard-2 --partial --results=/results/merged',
    );
  });

  it('without --image it is refused (254), naming what to give', async () => {
    const config = parseCommandLine(['nightly', '--emit=kubernetes']);
    await expect(emitKubernetes(config as never, () => {})).rejects.toThrow(/needs --image/);
  });
});

// Audit R10: --shards 65–100 was emitted and then refused by every pod; --cells, --parallel, --expectations,
// --known-bugs and --baseline were dropped without a word.
describe('nightly --emit=kubernetes refuses what its pods would, and carries every nightly option', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-emit-test-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const refused = async (argv: string[]) => {
    try {
      await emitted(argv);
    } catch (err) {
      return `${(err as { exitCode: number }).exitCode} ${(err as Error).message}`;
    }
    return 'accepted';
  };

  it('--shards past what --shard takes (64) is refused (254) before anything is printed', async () => {
    expect(await refused(['--image=i:1', '--shards=65'])).toBe('254 --shards must be between 1 and 64, got 65.');
    expect(await refused(['--image=i:1', '--shards=64'])).toBe('accepted');
  });

  it('--cells, --parallel and the three files reach the pods: flags, and the files packed in a ConfigMap', async () => {
    const expectations = path.join(dir, 'exp.json');
    const exp = '{ "cells": [ { "lock": "redis", "fault": "none", "expect": "safe", "why": "ours" } ] }\n';
    fs.writeFileSync(expectations, exp);
    const bugs = fs.mkdtempSync(path.join(dir, 'bugs-'));
    fs.writeFileSync(path.join(bugs, 'NOTES'), 'no bug yet\n');
    const baseline = path.join(dir, 'last-night');
    fs.mkdirSync(baseline);
    const night = {
      version: 1,
      seed: 1,
      shard: null,
      settings: [],
      command: 'fencepost nightly',
      startedAt: '2026-12-05T01:00:00.000Z',
      wallMs: 1,
      expectationsFile: null,
      cells: [],
    };
    fs.writeFileSync(path.join(baseline, 'nightly.json'), JSON.stringify(night));
    const docs = await emitted([
      '--image=i:1',
      '--shards=2',
      '--seed=5',
      '--cells=expectations',
      '--parallel=3',
      `--expectations=${expectations}`,
      `--known-bugs=${bugs}`,
      `--baseline=${baseline}`,
    ]);
    expect(docs.map((d) => d.kind)).toEqual(['PersistentVolumeClaim', 'ConfigMap', 'Job', 'Job']);
    for (const d of docs) expect(() => validate(d)).not.toThrow();
    const [, inputs, job, merge] = docs as any[];
    const shardCommand = job.spec.template.spec.containers[0].command.join(' ');
    expect(shardCommand).toContain(
      '(umask 077 && mkdir -p /tmp/fencepost-inputs && tar -xzf /inputs/inputs.tgz -C /tmp/fencepost-inputs --no-same-owner --no-same-permissions) && exec fencepost nightly',
    );
    expect(shardCommand).toContain(
      '--cells=expectations --parallel=3 --expectations=/tmp/fencepost-inputs/expectations.json --known-bugs=/tmp/fencepost-inputs/known-bugs --seed=5',
    );
    expect(job.spec.template.spec.containers[0].resources.requests).toEqual({ cpu: '3', memory: '5Gi' });
    const mergeCommand = merge.spec.template.spec.containers[0].command.join(' ');
    expect(mergeCommand).toContain('--partial --baseline=/tmp/fencepost-inputs/baseline --results=/results/merged');
    for (const pod of [job, merge])
      expect(pod.spec.template.spec.volumes).toContainEqual({
        name: 'inputs',
        configMap: { name: 'fencepost-nightly-5-inputs' },
      });
    // What the pods unpack is what this machine has, byte for byte.
    const tgz = path.join(dir, 'inputs.tgz');
    fs.writeFileSync(tgz, Buffer.from(inputs.binaryData['inputs.tgz'], 'base64'));
    const out = fs.mkdtempSync(path.join(dir, 'unpacked-'));
    await execa('tar', ['-xzf', tgz, '-C', out]);
    expect(fs.readFileSync(path.join(out, 'expectations.json'), 'utf8')).toBe(exp);
    expect(fs.readFileSync(path.join(out, 'known-bugs', 'NOTES'), 'utf8')).toBe('no bug yet\n');
    expect(JSON.parse(fs.readFileSync(path.join(out, 'baseline', 'nightly.json'), 'utf8'))).toEqual(night);
  });

  it('an expectations file naming a plugin lock is refused: its code is not in the image', async () => {
    fs.writeFileSync(path.join(dir, 'ours.ts'), 'export default {};\n');
    const expectations = path.join(dir, 'plugin.json');
    fs.writeFileSync(expectations, '{ "cells": [ { "lock": "./ours.ts", "fault": "none", "expect": "safe" } ] }\n');
    const out = await refused(['--image=i:1', `--expectations=${expectations}`]);
    expect(out).toMatch(
      /^254 nightly --emit=kubernetes: .*plugin\.json:\d+ names the lock \.\/.*ours\.ts, whose code is on this machine and not in the pods' image\.$/,
    );
  });

  it('the merge waits at most the shards bound: far less than the 12 h it polled before', async () => {
    const [, job, merge] = (await emitted(['--image=i:1', '--shards=4', '--seed=7'])) as any[];
    expect(job.spec.activeDeadlineSeconds).toBeGreaterThan(15 * 60);
    expect(job.spec.activeDeadlineSeconds).toBeLessThan(4 * 3600);
    expect(merge.spec.activeDeadlineSeconds).toBe(job.spec.activeDeadlineSeconds + 120 + 3600);
  });
});

describe('the schema check catches a broken manifest', () => {
  const good = nightlyJob({ image: 'i:1', shards: 2, seed: 1, settings: [], shardBoundS: 3600 });
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
