import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { parseTarget } from '../target/target-file.ts';
import { lockEndpoints, plannedCommands } from './target-commands.ts';
import { targetFaultAdapters } from './target-faults.ts';

const FILE = '/srv/t/target.json';
const EXEC = {
  type: 'exec',
  commands: {
    pause: ['./pause.sh', '{node}'],
    resume: ['./resume.sh', '{node}'],
    kill: ['./kill.sh', '{node}'],
    start: ['./start.sh', '{node}'],
    evidence: ['./evidence.sh', '{node}'],
  },
};

function target(over: Record<string, unknown> = {}) {
  return parseTarget(
    {
      name: 't',
      'i-own-this': true,
      allowHosts: ['127.0.0.1'],
      keyPrefix: 'fp-t/',
      servers: { redis: { endpoints: [{ host: '127.0.0.1', port: 7000, node: 'r0' }] } },
      ...over,
    },
    FILE,
  );
}

function refused(t: ReturnType<typeof target>, faults: FaultName[]): HarnessError {
  try {
    targetFaultAdapters(t, faults);
  } catch (err) {
    expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
    return err as HarnessError;
  }
  throw new Error('accepted');
}

describe('faults against a target', () => {
  it('client-side faults need nothing of the target', () => {
    expect(
      targetFaultAdapters(target(), [
        'pause-holder',
        'kill-holder',
        'pause-client',
        'partition',
        'latency',
        'delay-write',
      ]),
    ).toEqual({});
  });

  it('a server fault without an adapter is refused (254), naming the field to add', () => {
    for (const f of ['pause-node', 'restart-empty'] as FaultName[]) {
      const err = refused(target(), [f]);
      expect(err.message).toContain(`${f} acts on the target's servers`);
      expect(err.message).toContain('names no adapter for it');
      expect(err.hint).toContain(`"serverFaults": { "${f}": "<adapter>" }`);
    }
  });

  it('an adapter that cannot do the action is refused, naming the missing command', () => {
    const t = target({
      adapters: { k: { type: 'exec', commands: { kill: ['./k.sh', '{node}'], start: ['./s.sh', '{node}'] } } },
      serverFaults: { 'pause-node': 'k' },
    });
    expect(refused(t, ['pause-node']).message).toContain('to pause, and it cannot (no "pause" command)');
  });

  it('faults that only work on servers fencepost starts are refused with why', () => {
    expect(refused(target(), ['clock']).message).toContain('LD_PRELOAD shim');
    expect(refused(target(), ['failover']).message).toContain('cannot run against a target');
    expect(refused(target(), ['isolate-leader']).message).toContain('nftables');
  });

  it('proxy faults are refused for a Redis Cluster/Sentinel target: the clients would go around the proxies', () => {
    const t = target({ servers: { redis: { mode: 'cluster', endpoints: ['127.0.0.1:7000'] } } });
    expect(refused(t, ['partition']).message).toMatch(
      /Redis cluster client learns the nodes' real addresses.*silently not happen/,
    );
    expect(targetFaultAdapters(t, ['pause-holder'])).toEqual({});
  });

  it('maps each action to its adapter', () => {
    const t = target({ adapters: { o: EXEC }, serverFaults: { 'pause-node': 'o', 'restart-empty': 'o' } });
    expect(targetFaultAdapters(t, ['pause-node', 'restart-empty'])).toEqual({ pause: 'o', kill: 'o' });
  });
});

describe('the commands a run may execute', () => {
  it('per struck server: inject, evidence, heal — with programs resolved against the target file and the node named', () => {
    const t = target({ adapters: { o: EXEC }, serverFaults: { 'pause-node': 'o', 'restart-empty': 'o' } });
    const planned = plannedCommands(t, ['pause-node', 'restart-empty'], lockEndpoints(t, { redis: 1, etcd: 0 }));
    expect(planned.map((p) => p.planned.command)).toEqual([
      '/srv/t/pause.sh r0',
      '/srv/t/evidence.sh r0',
      '/srv/t/resume.sh r0',
      '/srv/t/kill.sh r0',
      '/srv/t/start.sh r0',
    ]);
  });

  it('docker and kubernetes adapters say the exact command their API call or kubectl run is', () => {
    const t = target({
      adapters: { d: { type: 'docker' }, k: { type: 'kubernetes', namespace: 'redis-stg', mode: 'chaos-mesh' } },
      serverFaults: { 'pause-node': 'd', 'restart-empty': 'k' },
    });
    const cmds = plannedCommands(t, ['pause-node', 'restart-empty'], lockEndpoints(t, { redis: 1, etcd: 0 })).map(
      (p) => p.planned.command,
    );
    // Each adapter's preflight first (the engine ping and inspect; kubectl's permission and the pod): the run
    // executes them too. `docker inspect r0` is also the evidence: listed once.
    expect(cmds).toEqual([
      'docker version',
      'docker inspect r0',
      'kubectl --namespace redis-stg auth can-i create podchaos.chaos-mesh.org',
      'kubectl --namespace redis-stg get pod r0',
      'docker pause r0',
      'docker unpause r0',
      'kubectl --namespace redis-stg apply -f -',
      'kubectl --namespace redis-stg get pod r0 -o json',
      'kubectl --namespace redis-stg delete podchaos fencepost-r0-pod-kill --ignore-not-found',
    ]);
  });
});
