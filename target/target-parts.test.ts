import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_RATE_MIN_OPS, ERROR_WINDOW_MS, ErrorRate } from '../harness/target-abort.ts';
import { shellLine } from './adapter.ts';
import { dnsName, podChaosProblems, podKill } from './chaos-mesh-manifest.ts';
import { CommandLog } from './command-log.ts';
import { outsideKey } from './fence-proof.ts';

describe('the error-rate abort condition', () => {
  it('needs enough completions in its window before it says a rate', () => {
    const r = new ErrorRate();
    for (let i = 0; i < ERROR_RATE_MIN_OPS - 1; i++) r.add(i, true);
    expect(r.rate(ERROR_RATE_MIN_OPS)).toBeNull();
    r.add(ERROR_RATE_MIN_OPS, false);
    expect(r.rate(ERROR_RATE_MIN_OPS)).toBeCloseTo((ERROR_RATE_MIN_OPS - 1) / ERROR_RATE_MIN_OPS);
  });

  it('forgets completions older than its window', () => {
    const r = new ErrorRate();
    for (let i = 0; i < 30; i++) r.add(0, true);
    for (let i = 0; i < 30; i++) r.add(ERROR_WINDOW_MS + 1000, false);
    expect(r.rate(ERROR_WINDOW_MS + 1000)).toBe(0);
  });
});

describe('the fence proof', () => {
  it('reads a key outside the prefix, whatever the prefix', () => {
    for (const prefix of ['fp/', 'fencepost-fence-probe-', 'x'])
      expect(outsideKey(prefix).startsWith(prefix)).toBe(false);
  });
});

describe('the command log', () => {
  it('keeps what ran before the run had a folder, and writes it first when attached', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-cmdlog-'));
    const log = new CommandLog(null, 'harness', true);
    const cmd = { adapter: 'o', action: 'pause', node: 'r0', command: './pause.sh r0' } as const;
    await log.run(cmd, async () => 1);
    await expect(
      log.run({ ...cmd, command: './x' }, async () => Promise.reject(new Error('exit 3'))),
    ).rejects.toThrow();
    log.attach(path.join(dir, 'c.jsonl'));
    await log.run({ ...cmd, action: 'resume', command: './resume.sh r0' }, async () => 1);
    const read = CommandLog.read(path.join(dir, 'c.jsonl'));
    expect(read.map((e) => [e.command, e.ok])).toEqual([
      ['./pause.sh r0', true],
      ['./x', false],
      ['./resume.sh r0', true],
    ]);
    expect(read[1].error).toBe('exit 3');
    fs.rmSync(dir, { recursive: true });
  });
});

describe('commands as they are printed', () => {
  it('quotes only what the shell would split', () => {
    expect(shellLine(['kubectl', 'exec', 'redis-0', '--', 'kill', '-STOP', '1'])).toBe(
      'kubectl exec redis-0 -- kill -STOP 1',
    );
    expect(shellLine(['sh', '-c', "echo 'a b'"])).toBe(`sh -c 'echo '\\''a b'\\'''`);
  });
});

describe('the Chaos Mesh object fencepost writes', () => {
  it('is a PodChaos Chaos Mesh accepts, labelled with the run', () => {
    const c = podKill('redis-stg', 'redis-0', 'staging-123-1700000000000');
    expect(podChaosProblems(c)).toEqual([]);
    expect(c.metadata.labels['fencepost.run']).toBe('staging-123-1700000000000');
    expect(c.spec).toMatchObject({ action: 'pod-kill', mode: 'one', selector: { pods: { 'redis-stg': ['redis-0'] } } });
  });

  it('a broken one is named field by field', () => {
    const c = podKill('ns', 'p', 'r') as any;
    expect(podChaosProblems({ ...c, spec: { ...c.spec, action: 'pod-pause', mode: 'some' } })).toEqual([
      'spec.action must be one of pod-kill, pod-failure, container-kill',
      'spec.mode must be one of one, all, fixed, fixed-percent, random-max-percent',
    ]);
    expect(podChaosProblems({ ...c, metadata: { ...c.metadata, name: 'Not_A_Name' } })).toContain(
      'metadata.name must be a DNS-1123 name',
    );
  });

  it('names fit Kubernetes: lower case, dashes, 63 characters at most', () => {
    expect(dnsName('fencepost', 'Redis_Primary.0', 'pod-kill')).toBe('fencepost-redis-primary-0-pod-kill');
    expect(dnsName('x'.repeat(80)).length).toBe(63);
  });
});
